import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asyncFileIo, type FileIo, fileIoFor, SYNC_READ_BYTES, syncFileIo } from "./file-io.ts";
import {
  fileRevision,
  readWorkspaceFile,
  type WorkspaceFileLimits,
  type WriteWorkspaceFileOptions,
  workspaceFileRevision,
  writeWorkspaceFile,
} from "./workspace-files.ts";

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-files-")));
  root = path.join(base, "ws");
  await mkdir(root);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("fileRevision", () => {
  it("is short, stable for equal content and different for different content", () => {
    expect(fileRevision("hello")).toBe(fileRevision(Buffer.from("hello")));
    expect(fileRevision("hello")).toMatch(/^[0-9a-f]{16}$/);
    expect(fileRevision("hello")).not.toBe(fileRevision("hello "));
    expect(fileRevision("")).not.toBe(fileRevision("\n"));
  });
});

describe("fileIoFor", () => {
  it("makes synchronous calls on local storage, and asynchronous ones for a root it cannot examine", () => {
    expect(fileIoFor(root)).toBe(syncFileIo);
    expect(fileIoFor(path.join(base, "no-root"))).toBe(asyncFileIo);
  });
});

// Both ways of making the calls must behave alike: local storage uses one, network filesystems the other.
describe.each<[string, FileIo]>([
  ["synchronous", syncFileIo],
  ["asynchronous", asyncFileIo],
])("writeWorkspaceFile and readWorkspaceFile, %s calls", (_name, io) => {
  const read = (rootPath: string, requestedPath: string, options: WorkspaceFileLimits = {}) => readWorkspaceFile(rootPath, requestedPath, { ...options, io });
  const write = (rootPath: string, requestedPath: string, content: string, options: WriteWorkspaceFileOptions = {}) =>
    writeWorkspaceFile(rootPath, requestedPath, content, { ...options, io });
  const revision = (rootPath: string, requestedPath: string) => workspaceFileRevision(rootPath, requestedPath, io);

  it("hashes and replaces a file larger than a synchronous read, through the thread pool", async () => {
    const large = Buffer.alloc(SYNC_READ_BYTES + 12_345, "a");
    await writeFile(path.join(root, "large.txt"), large);
    expect(await revision(root, "large.txt")).toBe(fileRevision(large));
    expect((await read(root, "large.txt")).revision).toBe(fileRevision(large));
    expect(await write(root, "large.txt", "small now", { expectedRevision: fileRevision(large) })).toMatchObject({ created: false });
    expect(await readFile(path.join(root, "large.txt"), "utf8")).toBe("small now");
  });

  it("creates a file with its directories, then reads it back with the same revision", async () => {
    const written = await write(root, "src/lib/a.ts", "export const a = 1;\n");
    expect(written).toEqual({ path: "src/lib/a.ts", revision: fileRevision("export const a = 1;\n"), created: true });
    expect(await readFile(path.join(root, "src/lib/a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(await read(root, "src/lib/a.ts")).toEqual({
      path: "src/lib/a.ts",
      content: "export const a = 1;\n",
      revision: written.revision,
    });
  });

  it("replacing a file reports created false, changes the revision and leaves no temporary file", async () => {
    const first = await write(root, "a.txt", "one");
    const second = await write(root, "a.txt", "two");
    expect(second.created).toBe(false);
    expect(second.revision).not.toBe(first.revision);
    expect(await readdir(root)).toEqual(["a.txt"]);
  });

  it("keeps the permission bits of the file it replaces", async () => {
    await write(root, "run.sh", "#!/bin/sh\n");
    await chmod(path.join(root, "run.sh"), 0o751);
    await write(root, "run.sh", "#!/bin/sh\necho hi\n");
    expect((await stat(path.join(root, "run.sh"))).mode & 0o777).toBe(0o751);
  });

  it("keeps a byte order mark and multi-byte text intact", async () => {
    const content = "\uFEFFgrüße, 世界\n";
    const written = await write(root, "bom.txt", content);
    const readBack = await read(root, "bom.txt");
    expect(readBack.content).toBe(content);
    expect(readBack.revision).toBe(written.revision);
  });

  it("a conditional write fails when the file changed, and a create-only write fails when it exists", async () => {
    const first = await write(root, "a.txt", "one");
    await writeFile(path.join(root, "a.txt"), "changed by someone else");
    await expect(write(root, "a.txt", "mine", { expectedRevision: first.revision })).rejects.toMatchObject({
      code: "revision_mismatch",
    });
    await expect(write(root, "a.txt", "mine", { expectedRevision: null })).rejects.toMatchObject({
      code: "revision_mismatch",
    });
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("changed by someone else");
    const created = await write(root, "b.txt", "new", { expectedRevision: null });
    expect(created.created).toBe(true);
  });

  it("writing through a link inside the workspace writes its target, and the link stays a link", async () => {
    await mkdir(path.join(root, "dir"));
    await symlink("dir/target.txt", path.join(root, "alias.txt"));
    const written = await write(root, "alias.txt", "via alias");
    expect(written.path).toBe("dir/target.txt");
    expect(await readFile(path.join(root, "dir/target.txt"), "utf8")).toBe("via alias");
    expect((await read(root, "alias.txt")).content).toBe("via alias");
  });

  it("refuses binary, oversized and NUL-bearing content with clear codes", async () => {
    await writeFile(path.join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await writeFile(path.join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(path.join(root, "big.txt"), "x".repeat(2000));
    await expect(read(root, "image.png")).rejects.toMatchObject({ code: "binary_file" });
    await expect(read(root, "latin1.txt")).rejects.toMatchObject({ code: "binary_file" });
    await expect(read(root, "big.txt", { maxBytes: 1000 })).rejects.toMatchObject({ code: "file_too_large" });
    await expect(write(root, "big2.txt", "y".repeat(2000), { maxBytes: 1000 })).rejects.toMatchObject({
      code: "file_too_large",
    });
    await expect(write(root, "nul.txt", "a\u0000b")).rejects.toMatchObject({ code: "binary_file" });
    expect(await readdir(root)).toEqual(["big.txt", "image.png", "latin1.txt"]);
  });

  it("answers file_not_found, not_a_file and invalid_path for the wrong kind of path", async () => {
    await mkdir(path.join(root, "dir"));
    await expect(read(root, "missing.txt")).rejects.toMatchObject({ code: "file_not_found" });
    await expect(read(root, "dir")).rejects.toMatchObject({ code: "not_a_file" });
    await expect(read(root, "")).rejects.toMatchObject({ code: "invalid_path" });
    await expect(write(root, "dir", "x")).rejects.toMatchObject({ code: "not_a_file" });
    await expect(read(root, "../escape.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
  });

  it("workspaceFileRevision is null for a missing file and matches fileRevision for any file", async () => {
    expect(await revision(root, "missing.txt")).toBeNull();
    const bytes = Buffer.from([0, 1, 2, 3, 255]);
    await writeFile(path.join(root, "blob.bin"), bytes);
    expect(await revision(root, "blob.bin")).toBe(fileRevision(bytes));
  });

  it("workspaceFileRevision answers a plain path as resolving it would, links, missing directories and escapes included", async () => {
    await mkdir(path.join(root, "sub"));
    await writeFile(path.join(root, "sub", "real.txt"), "inside");
    await writeFile(path.join(base, "secret.txt"), "outside");
    await symlink("real.txt", path.join(root, "sub", "alias.txt"));
    await symlink("sub", path.join(root, "linked"));
    await symlink("gone.txt", path.join(root, "dangling.txt"));
    await symlink(path.join(base, "secret.txt"), path.join(root, "out.txt"));
    expect(await revision(root, "sub/real.txt")).toBe(fileRevision("inside"));
    // A link on the way is followed (inside the workspace), never refused for being a link.
    expect(await revision(root, "sub/alias.txt")).toBe(fileRevision("inside"));
    expect(await revision(root, "linked/real.txt")).toBe(fileRevision("inside"));
    expect(await revision(root, "dangling.txt")).toBeNull();
    expect(await revision(root, "nowhere/missing.txt")).toBeNull();
    await expect(revision(root, "out.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(revision(root, "sub")).rejects.toMatchObject({ code: "not_a_file" });
    await expect(revision(path.join(base, "no-root"), "a.txt")).rejects.toMatchObject({ code: "workspace_root_missing" });
  });

  it("a plain path (opened beneath the root without resolving) is answered as resolving it would: links, escapes, a linked root", async () => {
    await mkdir(path.join(root, "sub"));
    await mkdir(path.join(base, "outside"));
    await writeFile(path.join(base, "outside", "secret.txt"), "outside");
    await writeFile(path.join(root, "sub", "real.txt"), "inside");
    await symlink("sub", path.join(root, "linked"));
    await symlink(path.join(base, "outside"), path.join(root, "out"));
    await symlink(path.join(base, "outside", "secret.txt"), path.join(root, "out.txt"));
    await symlink(root, path.join(base, "ws-alias"));
    // A link on the way inside the workspace is followed, and the file named by its real path.
    expect(await read(root, "linked/real.txt")).toMatchObject({ path: "sub/real.txt", content: "inside" });
    expect(await write(root, "linked/new.txt", "x")).toMatchObject({ path: "sub/new.txt", created: true });
    // Links leading out are refused whether they are a directory on the way or the file itself.
    await expect(read(root, "out/secret.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(read(root, "out.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(write(root, "out/planted.txt", "x")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(write(root, "out.txt", "x")).rejects.toMatchObject({ code: "path_outside_workspace" });
    // A root that is a link now is no longer the workspace, for a plain path too.
    await expect(read(path.join(base, "ws-alias"), "sub/real.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(write(path.join(base, "ws-alias"), "sub/x.txt", "x")).rejects.toMatchObject({ code: "path_outside_workspace" });
    // A drive letter is refused as before, not taken for a file name.
    await expect(write(root, "C:x.txt", "x")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(read(root, "missing-dir/x.txt")).rejects.toMatchObject({ code: "file_not_found" });
    expect(await readdir(path.join(base, "outside"))).toEqual(["secret.txt"]);
    expect(await readFile(path.join(base, "outside", "secret.txt"), "utf8")).toBe("outside");
    expect((await readdir(root)).sort()).toEqual(["linked", "out", "out.txt", "sub"]);
  });
});
