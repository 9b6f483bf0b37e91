import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspaceDirectories } from "./create-workspace-directories.ts";
import { asyncFileIo, syncFileIo } from "./file-io.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-mkdir-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.each([
  ["synchronous", syncFileIo],
  ["asynchronous", asyncFileIo],
])("createWorkspaceDirectories, %s calls", (_name, io) => {
  it("creates every missing level", async () => {
    const created = await createWorkspaceDirectories(io, root, path.join(root, "a", "b", "c"), "a/b/c/x.txt");
    await io.close(created);
    expect((await stat(path.join(root, "a", "b", "c"))).isDirectory()).toBe(true);
  });

  it("stops at a level that is a link (as if planted after the path was resolved) and creates nothing through it", async () => {
    await symlink(outside, path.join(root, "a"));
    await expect(createWorkspaceDirectories(io, root, path.join(root, "a", "b"), "a/b/x.txt")).rejects.toMatchObject({
      code: "path_outside_workspace",
    });
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses a directory outside the root", async () => {
    await expect(createWorkspaceDirectories(io, root, path.join(outside, "b"), "../outside/b/x")).rejects.toMatchObject({
      code: "path_outside_workspace",
    });
    expect(await readdir(outside)).toEqual([]);
  });
});
