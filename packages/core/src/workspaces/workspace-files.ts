import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import { createWorkspaceDirectories } from "./create-workspace-directories.ts";
import { type FileIo, fdatasync, fileIoFor, readerFor } from "./file-io.ts";
import { openDirectoryBeneath, openFileBeneath, pathBeneath } from "./open-beneath.ts";
import { errnoCode, isPlainRelativePath, resolveWorkspacePath } from "./resolve-workspace-path.ts";
import { BinaryFileError, FileNotFoundError, FileTooLargeError, InvalidPathError, NotAFileError, RevisionMismatchError } from "./workspace-file-errors.ts";

/**
 * Default largest file read or written as text: 5 MiB. Large enough for any source file, small
 * enough that a whole file fits in memory and in one HTTP response without thought.
 */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface WorkspaceFileLimits {
  /** Largest file read or written, in bytes (default DEFAULT_MAX_FILE_BYTES, 5 MiB). */
  maxBytes?: number;
  /** How the system calls are made (file-io.ts); default `fileIoFor(rootPath)`, by the storage the root is on. */
  io?: FileIo;
}

export interface WriteWorkspaceFileOptions extends WorkspaceFileLimits {
  /**
   * Write only if the file is still at this revision; `null` = only if it does not exist yet;
   * `undefined` (default) = unconditionally. The check narrows, but does not close, the window
   * against a concurrent writer (nothing here locks the file).
   */
  expectedRevision?: string | null;
  /**
   * Called with the file's real workspace-relative path and its current revision (null: it does not
   * exist yet) once the write has opened its directory (missing directories are created first) and
   * before anything is written; what it throws aborts the write. The write then goes ahead only over
   * that revision, as `expectedRevision` would (both hold when both are given). For a caller whose rule depends on
   * the file as it is now (write_file's read-before-write rule): one look at the file, not two.
   * Default: none.
   */
  beforeWrite?: (file: { path: string; currentRevision: string | null }) => Promise<void>;
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
export async function readWorkspaceFile(rootPath: string, requestedPath: string, options: WorkspaceFileLimits = {}): Promise<WorkspaceFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const io = options.io ?? fileIoFor(rootPath);
  // A plain path opened beneath the root with no link followed is its own real path (see
  // openPlainPath): resolving it first (two realpaths, a readlink per level of the root) tells nothing more.
  if (isPlainRelativePath(requestedPath)) {
    const fd = await openPlainPath(io, rootPath, requestedPath);
    if (fd === null) throw new FileNotFoundError(requestedPath);
    if (fd !== undefined) {
      let bytes: Buffer;
      try {
        bytes = (await readOpenFile(io, fd, requestedPath, maxBytes)).bytes;
      } finally {
        await io.close(fd);
      }
      return { path: requestedPath, content: decodeText(bytes, requestedPath), revision: fileRevision(bytes) };
    }
  }
  const resolved = await resolveWorkspacePath(rootPath, requestedPath);
  if (resolved.relativePath === "") throw new InvalidPathError(requestedPath, "a file path is needed, not the workspace root");
  const bytes = await readRegularFile(io, resolved.rootPath, resolved.relativePath, maxBytes, requestedPath);
  if (bytes === undefined) throw new FileNotFoundError(resolved.relativePath);
  return { path: resolved.relativePath, content: decodeText(bytes, resolved.relativePath), revision: fileRevision(bytes) };
}

const REVISION_READ_BYTES = 256 * 1024;

/**
 * The current revision of a workspace file, or null if it does not exist. Works for any regular
 * file (text or not, any size): approvals bind to it.
 */
export async function workspaceFileRevision(rootPath: string, requestedPath: string, io = fileIoFor(rootPath)): Promise<string | null> {
  // Approvals and the file tools name plain paths (`notes/b.txt`): opened beneath the root with no
  // link followed, such a path is the real path, so resolving it (five or more calls) tells nothing
  // more. This check runs on a decision and again where the call executes, on the path a resume waits on.
  if (isPlainRelativePath(requestedPath)) {
    const fd = await openPlainPath(io, rootPath, requestedPath);
    if (fd === null) return null;
    if (fd !== undefined) {
      try {
        const revision = await openFileRevision(io, fd);
        if (revision !== undefined) return revision;
      } finally {
        await io.close(fd);
      }
    }
  }
  const resolved = await resolveWorkspacePath(rootPath, requestedPath);
  if (resolved.relativePath === "") throw new NotAFileError(resolved.relativePath);
  const fd = await openForReading(io, resolved.rootPath, resolved.relativePath, requestedPath);
  if (fd === undefined) return null;
  try {
    const revision = await openFileRevision(io, fd);
    if (revision === undefined) throw new NotAFileError(resolved.relativePath);
    return revision;
  } finally {
    await io.close(fd);
  }
}

/**
 * The directory of a plain relative path, opened beneath the root with no link followed, and the
 * path's last name; undefined when it cannot be opened so (a link, a missing directory or root, a
 * refusal): the callers then resolve the path.
 */
async function openPlainParent(io: FileIo, rootPath: string, relativePath: string): Promise<{ directory: number; name: string } | undefined> {
  const segments = relativePath.split("/");
  const name = segments.pop() ?? "";
  try {
    return { directory: await openDirectoryBeneath(io, rootPath, segments.join("/"), relativePath), name };
  } catch {
    return undefined;
  }
}

/**
 * Opens the file at a plain relative path (isPlainRelativePath) for reading, component by component
 * beneath the root with no link followed (open-beneath.ts), without blocking on a FIFO. What it opens
 * is the path's real file: the root's descriptor is checked to be the root's real path, and no
 * component is a link. Null when its directory exists and the name does not. Undefined when this
 * cannot tell (a link on the way, a missing directory or root, a refusal): the caller resolves the
 * path, which decides those cases exactly as it does for any other path.
 */
async function openPlainPath(io: FileIo, rootPath: string, relativePath: string): Promise<number | null | undefined> {
  const parent = await openPlainParent(io, rootPath, relativePath);
  if (!parent) return undefined;
  const { directory, name } = parent;
  try {
    return await io.open(pathBeneath(directory, name), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    return errnoCode(error) === "ENOENT" ? null : undefined;
  } finally {
    await io.close(directory);
  }
}

/** The revision of an open file's content, or undefined when it is not a regular file. */
async function openFileRevision(io: FileIo, fd: number): Promise<string | undefined> {
  const stats = await io.fstat(fd);
  if (!stats.isFile()) return undefined;
  // Plain reads into one buffer: a read stream costs more than the hashing for the small files
  // approvals usually bind (this runs on the decision and again where the call executes).
  const reader = readerFor(io, stats.size);
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(Math.min(REVISION_READ_BYTES, Math.max(stats.size + 1, 8192)));
  for (;;) {
    const bytesRead = await reader.read(fd, buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
  }
  return hash.digest("hex").slice(0, 16);
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
  content: string | Buffer,
  options: WriteWorkspaceFileOptions = {},
): Promise<WrittenWorkspaceFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const checkContent = (relativePath: string) => {
    if (bytes.length > maxBytes) throw new FileTooLargeError(relativePath, bytes.length, maxBytes);
    // Text in, text out: a NUL byte would make the file unreadable through readWorkspaceFile. Bytes
    // (a Buffer: an exported PDF) are written as given.
    if (typeof content === "string" && bytes.includes(0)) throw new BinaryFileError(relativePath);
  };

  // Every step below goes through the directory's descriptor (open-beneath.ts): a directory of the
  // path swapped for a link at any moment cannot move the write, or the read of the old file, elsewhere.
  const io = options.io ?? fileIoFor(rootPath);
  const target =
    (isPlainRelativePath(requestedPath) ? await openPlainWriteTarget(io, rootPath, requestedPath, checkContent) : undefined) ??
    (await openResolvedWriteTarget(io, rootPath, requestedPath, checkContent));
  const { directory, name, relativePath, existing } = target;
  const temporaryPath = pathBeneath(directory, `.agentq-${randomBytes(8).toString("hex")}.tmp`);
  let created: boolean;
  try {
    const currentRevision = existing === undefined ? null : fileRevision(existing.bytes);
    if (options.expectedRevision !== undefined && options.expectedRevision !== currentRevision) {
      throw new RevisionMismatchError(relativePath, options.expectedRevision, currentRevision);
    }
    if (options.beforeWrite) await options.beforeWrite({ path: relativePath, currentRevision });
    // Either way the file is written only over the revision just checked.
    const expectedRevision = options.beforeWrite ? currentRevision : options.expectedRevision;
    // O_EXCL + O_NOFOLLOW: never write through a link that appeared in the meantime.
    const fd = await io.open(temporaryPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
    try {
      try {
        if (existing !== undefined) await io.fchmod(fd, existing.mode);
        await io.writeFile(fd, bytes);
        await fdatasync(fd);
      } finally {
        await io.close(fd);
      }
      created = await moveIntoPlace(io, temporaryPath, pathBeneath(directory, name), existing === undefined, expectedRevision, relativePath);
    } finally {
      await io.unlink(temporaryPath).catch(() => undefined);
    }
  } finally {
    await io.close(directory);
  }
  return { path: relativePath, revision: fileRevision(bytes), created };
}

/** Where a write goes: its directory opened beneath the root (the caller closes it), and the file it replaces. */
interface WriteTarget {
  directory: number;
  name: string;
  /** The file's real workspace-relative path. */
  relativePath: string;
  existing: ExistingFile | undefined;
}

/**
 * The target of a write to a plain relative path whose directories all exist, opened beneath the
 * root with no link followed (see openPlainPath): the path is then its own real path, and resolving
 * it (realpaths, lstats, a readlink per level of the root) tells nothing more. Undefined when this
 * cannot tell (a link on the way or in the last place, a missing directory or root, a file in the
 * way): openResolvedWriteTarget decides those cases, and creates missing directories.
 */
async function openPlainWriteTarget(
  io: FileIo,
  rootPath: string,
  relativePath: string,
  checkContent: (relativePath: string) => void,
): Promise<WriteTarget | undefined> {
  const parent = await openPlainParent(io, rootPath, relativePath);
  if (!parent) return undefined;
  const { directory, name } = parent;
  try {
    const existing = await readExisting(io, pathBeneath(directory, name), relativePath, relativePath);
    checkContent(relativePath);
    return { directory, name, relativePath, existing };
  } catch (error) {
    await io.close(directory);
    // readExisting's ELOOP: the name is a link, which the resolved path follows (inside, or refused).
    if (error instanceof PathOutsideWorkspaceError) return undefined;
    throw error;
  }
}

/** The target of a write to any path: resolved (containment and link rules), with missing directories created. */
async function openResolvedWriteTarget(
  io: FileIo,
  rootPath: string,
  requestedPath: string,
  checkContent: (relativePath: string) => void,
): Promise<WriteTarget> {
  const resolved = await resolveWorkspacePath(rootPath, requestedPath, { forWrite: true });
  const relativePath = resolved.relativePath;
  // Before any directory is created: a refused write leaves nothing behind.
  checkContent(relativePath);
  const directory = await createWorkspaceDirectories(io, resolved.rootPath, path.dirname(resolved.absolutePath), requestedPath);
  const name = path.basename(resolved.absolutePath);
  try {
    return { directory, name, relativePath, existing: await readExisting(io, pathBeneath(directory, name), relativePath, requestedPath) };
  } catch (error) {
    await io.close(directory);
    throw error;
  }
}

/**
 * Renames the temporary file over the target. For a file that did not exist, a hard link is used
 * instead: it fails if the file appeared meanwhile, so a create-only write never overwrites.
 * Returns whether the file was created.
 */
async function moveIntoPlace(
  io: FileIo,
  temporaryPath: string,
  targetPath: string,
  expectNew: boolean,
  expectedRevision: string | null | undefined,
  relativePath: string,
): Promise<boolean> {
  let created = false;
  if (expectNew) {
    try {
      await io.link(temporaryPath, targetPath);
      return true;
    } catch (error) {
      const code = errnoCode(error);
      if (code === "EEXIST") {
        if (expectedRevision !== undefined) throw new RevisionMismatchError(relativePath, expectedRevision, null);
      } else if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") {
        // A filesystem without hard links: rename, and accept the small race on creation.
        created = true;
      } else {
        throw error;
      }
    }
  }
  try {
    await io.rename(temporaryPath, targetPath);
  } catch (error) {
    if (errnoCode(error) === "EISDIR") throw new NotAFileError(relativePath);
    throw error;
  }
  return created;
}

/** The bytes of a regular file beneath the root, or undefined if nothing exists there. */
async function readRegularFile(io: FileIo, rootPath: string, relativePath: string, maxBytes: number, requestedPath: string): Promise<Buffer | undefined> {
  const fd = await openForReading(io, rootPath, relativePath, requestedPath);
  if (fd === undefined) return undefined;
  try {
    return (await readOpenFile(io, fd, relativePath, maxBytes)).bytes;
  } finally {
    await io.close(fd);
  }
}

/**
 * The content of an open regular file of at most `maxBytes` (NotAFileError, FileTooLargeError
 * otherwise). Reads the size its one fstat gave, as Node's `readFile` would after an fstat of its
 * own: a file that grows meanwhile is read as it was measured, one that shrinks up to its end.
 */
async function readOpenFile(io: FileIo, fd: number, relativePath: string, maxBytes: number): Promise<ExistingFile> {
  const stats = await io.fstat(fd);
  if (!stats.isFile()) throw new NotAFileError(relativePath);
  if (stats.size > maxBytes) throw new FileTooLargeError(relativePath, stats.size, maxBytes);
  const mode = stats.mode & 0o7777;
  // A size of 0 may be a file that does not report its size: readFile reads those to their end.
  if (stats.size === 0) return { bytes: await io.readFile(fd), mode };
  const reader = readerFor(io, stats.size);
  const buffer = Buffer.allocUnsafe(stats.size);
  let filled = 0;
  while (filled < buffer.length) {
    const bytesRead = await reader.read(fd, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return { bytes: buffer.subarray(0, filled), mode };
}

/** A regular file's content and permission bits. */
interface ExistingFile {
  bytes: Buffer;
  mode: number;
}

/** The file a write replaces (its bytes and permission bits), opened through its directory's descriptor. */
async function readExisting(io: FileIo, pathThroughDirectory: string, relativePath: string, requestedPath: string): Promise<ExistingFile | undefined> {
  let fd: number;
  try {
    fd = await io.open(pathThroughDirectory, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new PathOutsideWorkspaceError(requestedPath);
    throw error;
  }
  try {
    // No size limit: the file is only hashed, and it is the caller's to replace.
    return await readOpenFile(io, fd, relativePath, Number.POSITIVE_INFINITY);
  } finally {
    await io.close(fd);
  }
}

/**
 * Opens a file for reading beneath the root, component by component with no link followed
 * (open-beneath.ts), and without blocking on a FIFO; undefined when nothing exists there.
 */
async function openForReading(io: FileIo, rootPath: string, relativePath: string, requestedPath: string): Promise<number | undefined> {
  try {
    return await openFileBeneath(io, rootPath, relativePath, constants.O_RDONLY | constants.O_NONBLOCK, requestedPath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") return undefined;
    if (code === "ENOTDIR") throw new FileNotFoundError(relativePath);
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
