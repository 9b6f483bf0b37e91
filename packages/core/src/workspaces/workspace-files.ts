import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, lstat, open, realpath, rename, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import { createWorkspaceDirectories } from "./create-workspace-directories.ts";
import { errnoCode, resolveWorkspacePath } from "./resolve-workspace-path.ts";
import {
  BinaryFileError,
  FileNotFoundError,
  FileTooLargeError,
  InvalidPathError,
  NotAFileError,
  RevisionMismatchError,
} from "./workspace-file-errors.ts";

/**
 * Default largest file read or written as text: 5 MiB. Large enough for any source file, small
 * enough that a whole file fits in memory and in one HTTP response without thought.
 */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface WorkspaceFileLimits {
  /** Largest file read or written, in bytes (default DEFAULT_MAX_FILE_BYTES, 5 MiB). */
  maxBytes?: number;
}

export interface WriteWorkspaceFileOptions extends WorkspaceFileLimits {
  /**
   * Write only if the file is still at this revision; `null` = only if it does not exist yet;
   * `undefined` (default) = unconditionally. The check narrows, but does not close, the window
   * against a concurrent writer (nothing here locks the file).
   */
  expectedRevision?: string | null;
}

export interface WorkspaceFile {
  /** Workspace-relative real path, `/`-separated. */
  path: string;
  content: string;
  revision: string;
}

export interface WrittenWorkspaceFile {
  path: string;
  revision: string;
  /** True when the file did not exist before this write. */
  created: boolean;
}

/**
 * An opaque revision of file content: the first 64 bits of its SHA-256, in hex. Any change of
 * content changes it (short of a 2^-64 collision); equal content has equal revisions, so a file
 * written back unchanged keeps its revision.
 */
export function fileRevision(content: string | Uint8Array): string {
  return createHash("sha256")
    .update(typeof content === "string" ? Buffer.from(content, "utf8") : content)
    .digest("hex")
    .slice(0, 16);
}

/** Reads a UTF-8 text file of the workspace. Binary (NUL bytes, invalid UTF-8) and huge files are refused. */
export async function readWorkspaceFile(
  rootPath: string,
  requestedPath: string,
  options: WorkspaceFileLimits = {},
): Promise<WorkspaceFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const resolved = await resolveWorkspacePath(rootPath, requestedPath);
  if (resolved.relativePath === "") throw new InvalidPathError(requestedPath, "a file path is needed, not the workspace root");
  const bytes = await readRegularFile(resolved.absolutePath, resolved.relativePath, maxBytes);
  if (bytes === undefined) throw new FileNotFoundError(resolved.relativePath);
  return { path: resolved.relativePath, content: decodeText(bytes, resolved.relativePath), revision: fileRevision(bytes) };
}

const REVISION_READ_BYTES = 256 * 1024;

/**
 * The current revision of a workspace file, or null if it does not exist. Works for any regular
 * file (text or not, any size): approvals bind to it.
 */
export async function workspaceFileRevision(rootPath: string, requestedPath: string): Promise<string | null> {
  const resolved = await resolveWorkspacePath(rootPath, requestedPath);
  const handle = await openNoFollow(resolved.absolutePath, resolved.relativePath);
  if (handle === undefined) return null;
  try {
    if (!(await handle.stat()).isFile()) throw new NotAFileError(resolved.relativePath);
    // Plain reads into one buffer: a read stream costs more than the hashing for the small files
    // approvals usually bind (this runs on the decision and again where the call executes).
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(REVISION_READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return hash.digest("hex").slice(0, 16);
  } finally {
    await handle.close();
  }
}

/**
 * Creates or replaces a UTF-8 text file atomically: the content goes to a temporary file in the
 * same directory, which is then renamed over the target (readers see the old or the new file,
 * never half of one). Missing parent directories are created, each checked to be inside the
 * workspace. An existing file keeps its permission bits.
 */
export async function writeWorkspaceFile(
  rootPath: string,
  requestedPath: string,
  content: string,
  options: WriteWorkspaceFileOptions = {},
): Promise<WrittenWorkspaceFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const bytes = Buffer.from(content, "utf8");
  const resolved = await resolveWorkspacePath(rootPath, requestedPath, { forWrite: true });
  const relativePath = resolved.relativePath;
  if (bytes.length > maxBytes) throw new FileTooLargeError(relativePath, bytes.length, maxBytes);
  // Text in, text out: a NUL byte would make the file unreadable through readWorkspaceFile.
  if (bytes.includes(0)) throw new BinaryFileError(relativePath);

  const directory = path.dirname(resolved.absolutePath);
  await createWorkspaceDirectories(resolved.rootPath, directory, requestedPath);

  const existing = await readRegularFile(resolved.absolutePath, relativePath, Number.POSITIVE_INFINITY);
  const currentRevision = existing === undefined ? null : fileRevision(existing);
  if (options.expectedRevision !== undefined && options.expectedRevision !== currentRevision) {
    throw new RevisionMismatchError(relativePath, options.expectedRevision, currentRevision);
  }
  const existingMode = existing === undefined ? undefined : (await lstat(resolved.absolutePath)).mode & 0o7777;

  const temporaryPath = path.join(directory, `.agentq-${randomBytes(8).toString("hex")}.tmp`);
  // O_EXCL + O_NOFOLLOW: never write through a link that appeared in the meantime.
  const handle = await open(temporaryPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  let created: boolean;
  try {
    try {
      if (existingMode !== undefined) await handle.chmod(existingMode);
      await handle.writeFile(bytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    // A parent directory swapped for a link after the checks would have moved the write elsewhere.
    if ((await realpath(directory)) !== directory) throw new PathOutsideWorkspaceError(requestedPath);
    created = await moveIntoPlace(temporaryPath, resolved.absolutePath, existing === undefined, options, relativePath);
  } finally {
    await unlink(temporaryPath).catch(() => undefined);
  }
  return { path: relativePath, revision: fileRevision(bytes), created };
}

/**
 * Renames the temporary file over the target. For a file that did not exist, a hard link is used
 * instead: it fails if the file appeared meanwhile, so a create-only write never overwrites.
 * Returns whether the file was created.
 */
async function moveIntoPlace(
  temporaryPath: string,
  targetPath: string,
  expectNew: boolean,
  options: WriteWorkspaceFileOptions,
  relativePath: string,
): Promise<boolean> {
  let created = false;
  if (expectNew) {
    try {
      await link(temporaryPath, targetPath);
      return true;
    } catch (error) {
      const code = errnoCode(error);
      if (code === "EEXIST") {
        if (options.expectedRevision !== undefined) throw new RevisionMismatchError(relativePath, options.expectedRevision, null);
      } else if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") {
        // A filesystem without hard links: rename, and accept the small race on creation.
        created = true;
      } else {
        throw error;
      }
    }
  }
  try {
    await rename(temporaryPath, targetPath);
  } catch (error) {
    if (errnoCode(error) === "EISDIR") throw new NotAFileError(relativePath);
    throw error;
  }
  return created;
}

/** The bytes of a regular file, or undefined if nothing exists there. */
async function readRegularFile(absolutePath: string, relativePath: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await openNoFollow(absolutePath, relativePath);
  if (handle === undefined) return undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotAFileError(relativePath);
    if (stats.size > maxBytes) throw new FileTooLargeError(relativePath, stats.size, maxBytes);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Opens for reading without following a final link (the path was resolved to a real path, so a
 * link there now means it changed under us) and without blocking on a FIFO.
 */
async function openNoFollow(absolutePath: string, relativePath: string): Promise<FileHandle | undefined> {
  try {
    return await open(absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") return undefined;
    if (code === "ENOTDIR") throw new FileNotFoundError(relativePath);
    if (code === "ELOOP") throw new InvalidPathError(relativePath, "the path changed into a symbolic link while it was being opened");
    if (code === "EISDIR") throw new NotAFileError(relativePath);
    throw error;
  }
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes losslessly (a BOM is kept) so that re-encoding gives the same bytes and revision. */
export function decodeText(bytes: Uint8Array, relativePath: string): string {
  if (bytes.includes(0)) throw new BinaryFileError(relativePath);
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new BinaryFileError(relativePath);
  }
}
