import fs, { type Stats } from "node:fs";
import { promisify } from "node:util";

/**
 * The system calls the workspace file code makes, on descriptors (open-beneath.ts), in two
 * implementations with one behaviour: the same results and the same errors (`error.code`).
 *
 * - `syncFileIo` makes each call synchronously: on local storage a call takes a few microseconds,
 *   while an asynchronous one costs about twice the CPU and waits for a turn of a busy event loop
 *   (8–10 ms each under load, measured; a write_file is about a dozen calls).
 * - `asyncFileIo` hands each call to libuv's thread pool: on a network filesystem a call is a
 *   round trip, and blocking the event loop for it would stall every run of the process.
 *
 * `fileIoFor` picks one per workspace root by the filesystem it is on. `fdatasync` is always
 * asynchronous: flushing to the disk can take milliseconds anywhere.
 */
export interface FileIo {
  open(path: string, flags: number, mode?: number): Promise<number>;
  close(fd: number): Promise<void>;
  fstat(fd: number): Promise<Stats>;
  lstat(path: string): Promise<Stats>;
  /** Bytes read into `buffer` at `offset`; 0 at the end of the file. */
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number | null): Promise<number>;
  /** The rest of the file from the descriptor's position. */
  readFile(fd: number): Promise<Buffer>;
  readlink(path: string): Promise<string>;
  /** All of `bytes`, from the descriptor's position. */
  writeFile(fd: number, bytes: Buffer): Promise<void>;
  fchmod(fd: number, mode: number): Promise<void>;
  mkdir(path: string): Promise<void>;
  link(existingPath: string, newPath: string): Promise<void>;
  rename(oldPath: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export const syncFileIo: FileIo = {
  open: async (path, flags, mode) => fs.openSync(path, flags, mode),
  close: async (fd) => fs.closeSync(fd),
  fstat: async (fd) => fs.fstatSync(fd),
  lstat: async (path) => fs.lstatSync(path),
  read: async (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  readFile: async (fd) => fs.readFileSync(fd),
  readlink: async (path) => fs.readlinkSync(path),
  writeFile: async (fd, bytes) => fs.writeFileSync(fd, bytes),
  fchmod: async (fd, mode) => fs.fchmodSync(fd, mode),
  mkdir: async (path) => void fs.mkdirSync(path),
  link: async (existingPath, newPath) => fs.linkSync(existingPath, newPath),
  rename: async (oldPath, newPath) => fs.renameSync(oldPath, newPath),
  unlink: async (path) => fs.unlinkSync(path),
};

const readAsync = promisify(fs.read);

export const asyncFileIo: FileIo = {
  open: promisify(fs.open),
  close: promisify(fs.close),
  fstat: promisify(fs.fstat),
  lstat: promisify(fs.lstat),
  read: async (fd, buffer, offset, length, position) => (await readAsync(fd, buffer, offset, length, position)).bytesRead,
  readFile: promisify(fs.readFile),
  readlink: promisify(fs.readlink),
  writeFile: promisify(fs.writeFile),
  fchmod: promisify(fs.fchmod),
  mkdir: async (path) => void (await fs.promises.mkdir(path)),
  link: promisify(fs.link),
  rename: promisify(fs.rename),
  unlink: promisify(fs.unlink),
};

/** Flushes a descriptor's data to the disk; asynchronous whatever the storage. */
export const fdatasync: (fd: number) => Promise<void> = promisify(fs.fdatasync);

/**
 * Largest read made synchronously, 1 MiB: reading it from the page cache takes well under a
 * millisecond. Larger files (the unbounded hash of an approval's bound file, the file a write
 * replaces) are read through the thread pool whatever the storage.
 */
export const SYNC_READ_BYTES = 1024 * 1024;

/** The implementation for reading `size` bytes with `io`: `io` itself unless it is synchronous and the read large. */
export function readerFor(io: FileIo, size: number): FileIo {
  return io === syncFileIo && size > SYNC_READ_BYTES ? asyncFileIo : io;
}

/**
 * statfs(2) magic numbers of filesystems whose calls may cross a network (Linux's
 * include/uapi/linux/magic.h and the filesystems' own sources): NFS, SMB/CIFS, FUSE (sshfs,
 * s3fs...), Ceph, 9P, AFS, Lustre, GFS2, OCFS2, Coda, GPFS.
 */
const NETWORK_FILESYSTEMS: ReadonlySet<number> = new Set([
  0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x01021997, 0x5346414f, 0x0bd00bd0, 0x01161970, 0x7461636f, 0x73757245, 0x47504653,
]);

const ioByRoot = new Map<string, FileIo>();
const MAX_ROOTS_REMEMBERED = 10_000;

/**
 * The implementation for the workspace at `rootPath`: synchronous on local storage, asynchronous on
 * a network filesystem (docs/operations.md), decided once per root. A root that cannot be examined
 * gets the asynchronous one, and is examined again next time.
 */
export function fileIoFor(rootPath: string): FileIo {
  const known = ioByRoot.get(rootPath);
  if (known !== undefined) return known;
  let type: number;
  try {
    type = fs.statfsSync(rootPath).type;
  } catch {
    return asyncFileIo;
  }
  const io = NETWORK_FILESYSTEMS.has(type) ? asyncFileIo : syncFileIo;
  if (ioByRoot.size >= MAX_ROOTS_REMEMBERED) ioByRoot.clear();
  ioByRoot.set(rootPath, io);
  return io;
}
