import type { Dir } from "node:fs";
import { opendir } from "node:fs/promises";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../../errors/agentq-error.ts";
import { fileIoFor } from "../../workspaces/file-io.ts";
import { openDirectoryBeneath, pathBeneath } from "../../workspaces/open-beneath.ts";

export type WorkspaceEntryKind = "file" | "directory" | "symlink" | "other";

export interface WorkspaceEntry {
  /** Workspace-relative, `/`-separated. */
  relativePath: string;
  /** For display only: open the entry by `relativePath` beneath the root (open-beneath.ts), never by this path. */
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
export async function* walkWorkspace(rootPath: string, startAbsolutePath: string, options: WalkWorkspaceOptions = {}): AsyncGenerator<WorkspaceEntry> {
  const skipNames = options.skipDirectoryNames ?? DEFAULT_SKIPPED_DIRECTORIES;
  const maxEntriesPerDirectory = options.maxEntriesPerDirectory ?? 10_000;
  const io = fileIoFor(rootPath);
  const pending = [toRelative(rootPath, startAbsolutePath)];
  let first = true;
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = pending.shift()!;
    const children: WorkspaceEntry[] = [];
    // Opened beneath the root, component by component with no link followed (open-beneath.ts): a
    // directory swapped for a link after it was listed is never read through.
    let directoryFd: number;
    let listing: Dir;
    try {
      directoryFd = await openDirectoryBeneath(io, rootPath, directory, directory);
    } catch (error) {
      // The start was resolved a moment ago: a link there now is an escape attempt, said as such.
      if (first && error instanceof PathOutsideWorkspaceError) throw error;
      // Vanished, replaced or unreadable since it was listed: skip it rather than fail the whole walk.
      first = false;
      continue;
    }
    first = false;
    try {
      listing = await opendir(pathBeneath(directoryFd));
      for await (const dirent of listing) {
        const relativePath = directory === "" ? dirent.name : `${directory}/${dirent.name}`;
        const kind: WorkspaceEntryKind = dirent.isSymbolicLink() ? "symlink" : dirent.isDirectory() ? "directory" : dirent.isFile() ? "file" : "other";
        children.push({
          relativePath,
          absolutePath: path.join(rootPath, ...relativePath.split("/")),
          kind,
          skipped: kind === "directory" && skipNames.has(dirent.name),
        });
        if (children.length >= maxEntriesPerDirectory) break;
      }
    } catch {
      continue;
    } finally {
      await io.close(directoryFd);
    }
    children.sort((left, right) => (left.relativePath < right.relativePath ? -1 : left.relativePath > right.relativePath ? 1 : 0));
    for (const child of children) {
      yield child;
      if (child.kind === "directory" && !child.skipped) pending.push(child.relativePath);
    }
  }
}

function toRelative(rootPath: string, absolutePath: string): string {
  return path.relative(rootPath, absolutePath).split(path.sep).join("/");
}
