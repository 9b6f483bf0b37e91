import { constants, type Stats } from "node:fs";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import type { FileIo } from "./file-io.ts";
import { errnoCode } from "./resolve-workspace-path.ts";

/**
 * Opening workspace files without a window for a symbolic-link race (issue: a directory flipped to a
 * link between the check of a path and its use redirected the open outside the workspace).
 *
 * Node has no `openat`, so each step goes through `/proc/self/fd/<fd>/<name>`: the kernel resolves
 * `/proc/self/fd/<fd>` to the very directory that descriptor holds, whatever has happened to its
 * path since, and `O_NOFOLLOW` refuses `<name>` if it is a link. Starting from the workspace root
 * (whose descriptor is checked to be the expected real path), a path is walked one component at a
 * time, so every byte read or written is beneath the root. Linux only (docs/design.md: the worker runs
 * on Linux); `/proc` must be mounted.
 *
 * Every function returns a descriptor the caller closes with the same `io` (file-io.ts: `fileIoFor`
 * the root).
 */

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path through which `name` is reached inside the directory the descriptor `directory` holds. */
export function pathBeneath(directory: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${directory}` : `/proc/self/fd/${directory}/${name}`;
}

/**
 * Opens the workspace root itself, refusing it (path_outside_workspace) unless its descriptor's
 * real path is `rootPath`: a root replaced by a link, or moved, is no longer the workspace.
 */
export async function openWorkspaceRoot(io: FileIo, rootPath: string, requestedPath: string): Promise<number> {
  let fd: number;
  try {
    fd = await io.open(rootPath, DIRECTORY_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP" || code === "ENOTDIR") throw new PathOutsideWorkspaceError(requestedPath);
    throw error;
  }
  try {
    if ((await io.readlink(pathBeneath(fd))) !== rootPath) throw new PathOutsideWorkspaceError(requestedPath);
  } catch (error) {
    await io.close(fd);
    throw error;
  }
  return fd;
}

/**
 * Opens the directory at `relativePath` (`/`-separated, no `.`/`..`, `""` for the root) beneath
 * the root, one component at a time, never following a link. A component that is a link now is
 * refused as path_outside_workspace (the path was resolved before, so it changed under us);
 * a missing one rejects with the system error (ENOENT), a file in the way with ENOTDIR.
 */
export async function openDirectoryBeneath(io: FileIo, rootPath: string, relativePath: string, requestedPath: string): Promise<number> {
  let current = await openWorkspaceRoot(io, rootPath, requestedPath);
  for (const segment of segmentsOf(relativePath)) {
    let next: number;
    try {
      next = await openChildDirectory(io, current, segment, requestedPath);
    } finally {
      await io.close(current);
    }
    current = next;
  }
  return current;
}

/**
 * Opens the directory `name` inside `parent` without following a link. A link there is
 * path_outside_workspace (Linux answers O_DIRECTORY|O_NOFOLLOW on a link with ENOTDIR, so an
 * ENOTDIR is told apart with lstat); a file there rejects with ENOTDIR, a missing one with ENOENT.
 */
export async function openChildDirectory(io: FileIo, parent: number, name: string, requestedPath: string): Promise<number> {
  try {
    return await io.open(pathBeneath(parent, name), DIRECTORY_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP") throw new PathOutsideWorkspaceError(requestedPath);
    if (code === "ENOTDIR") {
      const isLink = await io.lstat(pathBeneath(parent, name)).then(
        (stats) => stats.isSymbolicLink(),
        () => false,
      );
      if (isLink) throw new PathOutsideWorkspaceError(requestedPath);
    }
    throw error;
  }
}

/**
 * Opens the file at `relativePath` beneath the root with `flags` (O_NOFOLLOW is always added: a
 * link in the last place is ELOOP, reported as path_outside_workspace). Rejects with the system
 * error otherwise (ENOENT when it does not exist, unless `flags` create it).
 */
export async function openFileBeneath(io: FileIo, rootPath: string, relativePath: string, flags: number, requestedPath: string, mode = 0o666): Promise<number> {
  const segments = segmentsOf(relativePath);
  const name = segments.pop();
  if (name === undefined) throw new PathOutsideWorkspaceError(requestedPath);
  const directory = await openDirectoryBeneath(io, rootPath, segments.join("/"), requestedPath);
  try {
    return await io.open(pathBeneath(directory, name), flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if (errnoCode(error) === "ELOOP") throw new PathOutsideWorkspaceError(requestedPath);
    throw error;
  } finally {
    await io.close(directory);
  }
}

function segmentsOf(relativePath: string): string[] {
  const segments = relativePath.split("/").filter((segment) => segment !== "");
  // Callers pass resolved real paths; `.` or `..` here would be a bug, never followed.
  if (segments.some((segment) => segment === "." || segment === "..")) throw new Error(`not a resolved relative path: ${relativePath}`);
  return segments;
}

/**
 * The kind and size of what is at `relativePath` beneath the root (`""`: the root), found without
 * following a link; undefined when nothing is there.
 */
export async function statBeneath(io: FileIo, rootPath: string, relativePath: string, requestedPath: string): Promise<Stats | undefined> {
  let fd: number;
  try {
    fd =
      relativePath === ""
        ? await openWorkspaceRoot(io, rootPath, requestedPath)
        : await openFileBeneath(io, rootPath, relativePath, constants.O_RDONLY | constants.O_NONBLOCK, requestedPath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  try {
    return await io.fstat(fd);
  } finally {
    await io.close(fd);
  }
}
