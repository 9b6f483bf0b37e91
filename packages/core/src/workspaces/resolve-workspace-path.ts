import type { Stats } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import { InvalidPathError, NotADirectoryError, NotAFileError, WorkspaceRootMissingError } from "./workspace-file-errors.ts";

export interface ResolveWorkspacePathOptions {
  /**
   * The caller is about to create or replace a file at this path (default false). Adds the checks a
   * write needs: a file name is given (not the root, no trailing slash), the target is not a
   * directory, and the nearest existing ancestor is a directory inside the workspace.
   */
  forWrite?: boolean;
}

export interface ResolvedWorkspacePath {
  /** Real absolute path: every existing component has its symbolic links resolved. */
  absolutePath: string;
  /**
   * Path relative to the real root, `/`-separated, `""` for the root itself. It names the file by
   * where it really is (a path through an in-workspace link gives the link's target), so two
   * spellings of one file share one identity (read ledger, approvals).
   */
  relativePath: string;
  /** Real absolute path of the workspace root. */
  rootPath: string;
}

/** Longer paths are refused outright; Linux's PATH_MAX is 4096. */
const MAX_PATH_LENGTH = 4096;
/** Same limit as Linux's MAXSYMLINKS: a longer chain is treated as a loop. */
const MAX_SYMLINK_HOPS = 40;
/** How many rounds of percent-decoding are checked for hidden escapes (`%252e` is `%2e` twice). */
const MAX_DECODE_ROUNDS = 3;

/**
 * Resolves a path given by a user or a model against a workspace root (a real path: a root that
 * resolves elsewhere now is refused) and refuses anything that would reach outside it. Containment is decided on real paths, after following every symbolic
 * link that exists (also dangling ones), so no link inside the workspace can lead out.
 *
 * Decisions, in the order they are applied:
 * - A NUL byte is refused (path_outside_workspace): the OS would truncate the path there.
 * - Backslashes are read as separators (`..\..\etc` is `../../etc`); a file whose name contains
 *   a backslash cannot be addressed, which is the price of refusing Windows-style escapes.
 * - A model may send percent-encoded paths. The path is used literally (`%41.txt` is a file of
 *   that name), but if any decoding of it (up to three rounds) escapes the workspace, is absolute
 *   outside it or holds a NUL byte, it is refused: an encoded escape is treated as an escape.
 * - An absolute path is accepted only when it lies inside the root;
 *   it then means the same file as its relative form. Any other absolute path, drive-letter or UNC
 *   form is refused.
 * - `.` and `..` segments are folded lexically before links are followed; a `..` above the root is
 *   refused. (`link/..` is therefore the directory holding `link`, whatever `link` points to.)
 * - The result is followed through symbolic links; if the real path is outside the root, it is
 *   refused. For a path that does not exist yet, the nearest existing ancestor decides.
 */
export async function resolveWorkspacePath(rootPath: string, requestedPath: string, options: ResolveWorkspacePathOptions = {}): Promise<ResolvedWorkspacePath> {
  if (typeof requestedPath !== "string") throw new InvalidPathError(String(requestedPath), "a path must be a string");
  if (requestedPath.length > MAX_PATH_LENGTH) {
    throw new InvalidPathError(`${requestedPath.slice(0, 80)}...`, `longer than ${MAX_PATH_LENGTH} characters`);
  }
  const rootReal = await realRoot(rootPath);
  // Workspace roots are stored as real paths (inside WORKSPACES_ROOT or a FILE_ROOTS directory, checked
  // when registered). A root that is no longer its own real path was replaced by a link, or a directory
  // above it was: following it could lead anywhere, so nothing is resolved against it.
  if (rootReal !== path.resolve(rootPath)) throw new PathOutsideWorkspaceError(requestedPath);
  const rootAliases = [rootReal];

  for (const decoded of percentDecodings(requestedPath)) {
    // Throws on an escape; the decoded segments themselves are never used.
    lexicalSegments(decoded, requestedPath, rootAliases);
  }
  const segments = lexicalSegments(requestedPath, requestedPath, rootAliases);

  const realTarget = await resolveThroughLinks(path.join(rootReal, ...segments), 0, requestedPath);
  if (!isInsideRoot(rootReal, realTarget)) throw new PathOutsideWorkspaceError(requestedPath);

  const resolved: ResolvedWorkspacePath = {
    absolutePath: realTarget,
    relativePath: toRelative(rootReal, realTarget),
    rootPath: rootReal,
  };
  if (options.forWrite) await checkWritable(resolved, requestedPath);
  return resolved;
}

/**
 * True for the paths resolveWorkspacePath leaves as they are, links aside: relative, `/`-separated,
 * no empty, `.` or `..` segment, nothing percent-encoded, no backslash, NUL byte or drive letter, not
 * too long. Opened beneath the root one component at a time with no link followed (open-beneath.ts),
 * such a path reaches its own real path, so resolving it first tells nothing more; a link on the way
 * (which may lead anywhere) is where the caller must resolve after all.
 */
export function isPlainRelativePath(requestedPath: string): boolean {
  return (
    requestedPath.length <= MAX_PATH_LENGTH &&
    /^[^/\\%\0]+(?:\/[^/\\%\0]+)*$/.test(requestedPath) &&
    !/^[A-Za-z]:/.test(requestedPath) &&
    requestedPath.split("/").every((segment) => segment !== "." && segment !== "..")
  );
}

/** True when `candidate` (an absolute, normalized path) is `rootPath` or below it. */
export function isInsideRoot(rootPath: string, candidate: string): boolean {
  if (candidate === rootPath) return true;
  const prefix = rootPath.endsWith(path.sep) ? rootPath : rootPath + path.sep;
  return candidate.startsWith(prefix);
}

async function realRoot(rootPath: string): Promise<string> {
  try {
    return await realpath(rootPath);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") throw new WorkspaceRootMissingError(rootPath);
    throw error;
  }
}

/** Every distinct percent-decoding of `requestedPath`, outermost first (the literal form excluded). */
function percentDecodings(requestedPath: string): string[] {
  const decodings: string[] = [];
  let current = requestedPath;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes("%"); round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      // A lone `%` is no encoding: the literal name stands.
      break;
    }
    if (decoded === current) break;
    decodings.push(decoded);
    current = decoded;
  }
  return decodings;
}

/** Splits a path into segments relative to the root, folding `.` and `..`; throws on any escape. */
function lexicalSegments(candidate: string, requestedPath: string, rootAliases: string[]): string[] {
  if (candidate.includes("\0")) throw new PathOutsideWorkspaceError(requestedPath);
  let normalized = candidate.replaceAll("\\", "/");
  if (/^[A-Za-z]:/.test(normalized)) throw new PathOutsideWorkspaceError(requestedPath);
  if (normalized.startsWith("/")) {
    const absolute = path.posix.normalize(normalized);
    const root = rootAliases.find((alias) => isInsideRoot(alias, absolute));
    if (root === undefined || normalized.startsWith("//")) throw new PathOutsideWorkspaceError(requestedPath);
    normalized = path.posix.relative(root, absolute);
  }
  const segments: string[] = [];
  for (const segment of normalized.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) throw new PathOutsideWorkspaceError(requestedPath);
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return segments;
}

/**
 * The path the OS would reach through `absolutePath`: existing links are followed (also a dangling
 * one, whose target may not exist yet), and the part that does not exist is appended as written.
 * Unlike `realpath`, it answers for paths that do not exist, which writes and containment need.
 */
async function resolveThroughLinks(absolutePath: string, hops: number, requestedPath: string): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new InvalidPathError(requestedPath, "too many levels of symbolic links");
  try {
    return await realpath(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ELOOP") throw new InvalidPathError(requestedPath, "too many levels of symbolic links");
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }

  // Walk up to the deepest entry that exists (lstat: a dangling link exists as a link).
  let existing = absolutePath;
  const missingTail: string[] = [];
  let stats: Stats;
  for (;;) {
    try {
      stats = await lstat(existing);
      break;
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      missingTail.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }

  if (stats.isSymbolicLink()) {
    const linkTarget = await readlink(existing);
    const parentReal = await resolveThroughLinks(path.dirname(existing), hops + 1, requestedPath);
    return resolveThroughLinks(path.resolve(parentReal, linkTarget, ...missingTail), hops + 1, requestedPath);
  }
  return path.join(await realpath(existing), ...missingTail);
}

async function checkWritable(resolved: ResolvedWorkspacePath, requestedPath: string): Promise<void> {
  if (resolved.relativePath === "") throw new InvalidPathError(requestedPath, "a file name is needed, not the workspace root");
  if (/[/\\]$/.test(requestedPath)) throw new InvalidPathError(requestedPath, "a file name is needed, not a directory");

  let current = resolved.absolutePath;
  for (;;) {
    try {
      const stats = await lstat(current);
      if (current === resolved.absolutePath) {
        if (!stats.isFile() && !stats.isSymbolicLink()) throw new NotAFileError(resolved.relativePath);
      } else if (!stats.isDirectory()) {
        throw new NotADirectoryError(toRelative(resolved.rootPath, current));
      }
      return;
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      current = path.dirname(current);
    }
  }
}

function toRelative(rootReal: string, absolutePath: string): string {
  return path.relative(rootReal, absolutePath).split(path.sep).join("/");
}

/** The `code` of a Node system error (`ENOENT`), or undefined. */
export function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
}
