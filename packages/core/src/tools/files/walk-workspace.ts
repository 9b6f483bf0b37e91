import { opendir } from "node:fs/promises";
import path from "node:path";

export type WorkspaceEntryKind = "file" | "directory" | "symlink" | "other";

export interface WorkspaceEntry {
  /** Workspace-relative, `/`-separated. */
  relativePath: string;
  absolutePath: string;
  kind: WorkspaceEntryKind;
  /** A directory that is listed but not descended into (`.git`, `node_modules`). */
  skipped: boolean;
}

export interface WalkWorkspaceOptions {
  /** Directory names shown but never descended into (default `.git`, `node_modules`): huge and rarely what a model wants. */
  skipDirectoryNames?: ReadonlySet<string>;
  /** Entries read from one directory at most (default 10,000): a bound on memory for pathological directories. */
  maxEntriesPerDirectory?: number;
  signal?: AbortSignal;
}

export const DEFAULT_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * Yields the entries below a directory, breadth first, sorted by name within each directory.
 * Symbolic links are reported, never followed: they could lead outside the workspace or loop.
 * The caller stops the walk early by leaving its `for await` loop.
 */
export async function* walkWorkspace(
  rootPath: string,
  startAbsolutePath: string,
  options: WalkWorkspaceOptions = {},
): AsyncGenerator<WorkspaceEntry> {
  const skipNames = options.skipDirectoryNames ?? DEFAULT_SKIPPED_DIRECTORIES;
  const maxEntriesPerDirectory = options.maxEntriesPerDirectory ?? 10_000;
  const pending = [startAbsolutePath];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = pending.shift()!;
    const children: WorkspaceEntry[] = [];
    let handle;
    try {
      handle = await opendir(directory);
    } catch {
      // Vanished or unreadable since it was listed: skip it rather than fail the whole walk.
      continue;
    }
    for await (const dirent of handle) {
      const absolutePath = path.join(directory, dirent.name);
      const kind: WorkspaceEntryKind = dirent.isSymbolicLink()
        ? "symlink"
        : dirent.isDirectory()
          ? "directory"
          : dirent.isFile()
            ? "file"
            : "other";
      children.push({
        relativePath: path.relative(rootPath, absolutePath).split(path.sep).join("/"),
        absolutePath,
        kind,
        skipped: kind === "directory" && skipNames.has(dirent.name),
      });
      if (children.length >= maxEntriesPerDirectory) break;
    }
    children.sort((left, right) => (left.relativePath < right.relativePath ? -1 : left.relativePath > right.relativePath ? 1 : 0));
    for (const child of children) {
      yield child;
      if (child.kind === "directory" && !child.skipped) pending.push(child.absolutePath);
    }
  }
}
