import { lstat, opendir } from "node:fs/promises";
import { InvalidRequestError } from "../errors/agentq-error.ts";
import { fileIoFor } from "./file-io.ts";
import { openDirectoryBeneath, pathBeneath, statBeneath } from "./open-beneath.ts";
import { resolveWorkspacePath } from "./resolve-workspace-path.ts";
import { FileNotFoundError } from "./workspace-file-errors.ts";

export type DirectoryEntryType = "file" | "directory" | "symlink" | "other";

export interface DirectoryEntry {
  name: string;
  /** Workspace-relative, `/`-separated: what the file routes take. */
  path: string;
  type: DirectoryEntryType;
  /** Bytes, for a regular file; null for anything else. */
  size: number | null;
}

export interface DirectoryListing {
  /** The directory listed, workspace-relative (its real path: a link inside the workspace is resolved); `""` for the root. */
  path: string;
  /** Directories first, then by name (code point order). */
  entries: DirectoryEntry[];
  /** The directory holds more than `maxEntries`. */
  truncated: boolean;
}

export interface ListWorkspaceDirectoryOptions {
  /** Entries returned at most. Default 1000: a screenful many times over, one small answer. */
  maxEntries?: number;
  /**
   * Entries read at most before sorting. Default 100,000: bounds memory on a pathological
   * directory (beyond it, the order is that of the entries read).
   */
  maxEntriesRead?: number;
}

/**
 * One level of a workspace directory. The path is resolved with the file routes' containment rules
 * (`path_outside_workspace`), and the directory is opened beneath the root without following a
 * link (open-beneath.ts); links inside it are listed as `symlink` and never followed, wherever
 * they lead. Nothing there: FileNotFoundError; a file there: `invalid_request` naming `path`.
 */
export async function listWorkspaceDirectory(rootPath: string, requestedPath: string, options: ListWorkspaceDirectoryOptions = {}): Promise<DirectoryListing> {
  const maxEntries = options.maxEntries ?? 1000;
  const maxEntriesRead = Math.max(maxEntries + 1, options.maxEntriesRead ?? 100_000);
  const resolved = await resolveWorkspacePath(rootPath, requestedPath);
  const io = fileIoFor(resolved.rootPath);
  const stats = await statBeneath(io, resolved.rootPath, resolved.relativePath, requestedPath);
  if (stats === undefined) throw new FileNotFoundError(resolved.relativePath);
  if (!stats.isDirectory()) {
    throw new InvalidRequestError(`query: path: "${resolved.relativePath}" is not a directory`, { field: "path", path: resolved.relativePath });
  }

  const directory = await openDirectoryBeneath(io, resolved.rootPath, resolved.relativePath, requestedPath);
  const entries: DirectoryEntry[] = [];
  let complete = true;
  let read = 0;
  try {
    const listing = await opendir(pathBeneath(directory));
    for await (const dirent of listing) {
      if (entries.length >= maxEntriesRead) {
        complete = false;
        break;
      }
      const type: DirectoryEntryType = dirent.isSymbolicLink() ? "symlink" : dirent.isDirectory() ? "directory" : dirent.isFile() ? "file" : "other";
      entries.push({ name: dirent.name, path: resolved.relativePath === "" ? dirent.name : `${resolved.relativePath}/${dirent.name}`, type, size: null });
    }
    entries.sort((left, right) => Number(right.type === "directory") - Number(left.type === "directory") || compareCodePoints(left.name, right.name));
    read = entries.length;
    entries.splice(maxEntries);
    // Sizes only of what is returned; lstat through the directory's descriptor never follows a link.
    await Promise.all(
      entries
        .filter((entry) => entry.type === "file")
        .map(async (entry) => {
          entry.size = await lstat(pathBeneath(directory, entry.name)).then(
            (entryStats) => entryStats.size,
            () => null,
          );
        }),
    );
  } finally {
    await io.close(directory);
  }
  return { path: resolved.relativePath, entries, truncated: !complete || read > maxEntries };
}

function compareCodePoints(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
