import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveWorkspacePath } from "./resolve-workspace-path.ts";
import { writeWorkspaceFile } from "./workspace-files.ts";

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-resolve-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "dir"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await writeFile(path.join(root, "inside.txt"), "inside");
  await writeFile(path.join(root, "dir", "a.txt"), "a");
  await symlink(path.join(outside, "secret.txt"), path.join(root, "link-file-out"));
  await symlink(outside, path.join(root, "link-dir-out"));
  await symlink(path.join(outside, "nothing.txt"), path.join(root, "dangling-out"));
  await symlink(path.join(outside, "newdir"), path.join(root, "dangling-dir-out"));
  await symlink("../outside", path.join(root, "rel-out"));
  await symlink("chain2", path.join(root, "chain1"));
  await symlink("rel-out", path.join(root, "chain2"));
  await symlink("../..", path.join(root, "dir", "up"));
  await symlink("dir", path.join(root, "link-in"));
  await symlink("link-in", path.join(root, "chain-in"));
  await symlink("dir/new-target.txt", path.join(root, "dangling-in"));
  await symlink("loop2", path.join(root, "loop1"));
  await symlink("loop1", path.join(root, "loop2"));
  await symlink(root, path.join(base, "ws-alias"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Every path below `directory`, links not followed, to prove a refused write created nothing. */
async function snapshot(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    found.push(entryPath);
    if (entry.isDirectory()) found.push(...(await snapshot(entryPath)));
  }
  return found.sort();
}

const escapes: Array<[string, string]> = [
  ["parent directory", "../outside/secret.txt"],
  ["bare ..", ".."],
  [".. after a folded segment", "dir/../../outside/secret.txt"],
  ["dot then ..", "./../x.txt"],
  ["deep .. run", "dir/a/b/../../../../outside"],
  ["absolute system path", "/etc/passwd"],
  ["filesystem root", "/"],
  ["percent-encoded ..", "%2e%2e/outside/secret.txt"],
  ["encoded slash after ..", "..%2foutside%2fsecret.txt"],
  ["upper-case encoding", "%2E%2E%2Foutside"],
  ["double-encoded ..", "%252e%252e%252foutside%252fsecret.txt"],
  ["encoded absolute path", "%2Fetc%2Fpasswd"],
  ["NUL byte", "inside.txt\u0000.png"],
  ["encoded NUL byte", "inside.txt%00.png"],
  ["backslash ..", "..\\outside\\secret.txt"],
  ["backslash .. after a segment", "dir\\..\\..\\outside"],
  ["drive letter", "C:\\Windows\\system32"],
  ["UNC path", "\\\\server\\share\\file"],
  ["symlink to an outside file", "link-file-out"],
  ["symlink to an outside directory", "link-dir-out/secret.txt"],
  ["new file under a symlinked outside directory", "link-dir-out/new.txt"],
  ["dangling symlink to outside", "dangling-out"],
  ["dangling symlinked directory to outside", "dangling-dir-out/x.txt"],
  ["relative symlink to outside", "rel-out/secret.txt"],
  ["symlink chain to outside", "chain1/secret.txt"],
  ["symlink inside a subdirectory climbing out", "dir/up/outside/secret.txt"],
];

describe("resolveWorkspacePath refuses escapes", () => {
  it.each(escapes)("%s (%j) is refused for reading", async (_name, requested) => {
    await expect(resolveWorkspacePath(root, requested)).rejects.toMatchObject({ code: "path_outside_workspace" });
  });

  it.each(escapes)("%s (%j) is refused for writing", async (_name, requested) => {
    await expect(resolveWorkspacePath(root, requested, { forWrite: true })).rejects.toMatchObject({
      code: expect.stringMatching(/^(path_outside_workspace|invalid_path)$/),
    });
  });

  it("an absolute path to an outside file is refused", async () => {
    await expect(resolveWorkspacePath(root, path.join(outside, "secret.txt"))).rejects.toMatchObject({
      code: "path_outside_workspace",
    });
  });

  it("an absolute path that only shares the root's name as a prefix is refused", async () => {
    await mkdir(`${root}-sibling`, { recursive: true });
    await expect(resolveWorkspacePath(root, `${root}-sibling/x.txt`)).rejects.toMatchObject({ code: "path_outside_workspace" });
  });

  it("refused writes create nothing outside (or inside) the workspace", async () => {
    const before = await snapshot(base);
    for (const [, requested] of escapes) {
      await expect(writeWorkspaceFile(root, requested, "pwned")).rejects.toMatchObject({
        code: expect.stringMatching(/^(path_outside_workspace|invalid_path)$/),
      });
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it("a symbolic link loop is an invalid path", async () => {
    await expect(resolveWorkspacePath(root, "loop1")).rejects.toMatchObject({ code: "invalid_path" });
    await expect(resolveWorkspacePath(root, "loop1/x", { forWrite: true })).rejects.toMatchObject({ code: "invalid_path" });
  });
});

describe("resolveWorkspacePath accepts paths inside", () => {
  it.each([
    ["inside.txt", "inside.txt"],
    ["dir/a.txt", "dir/a.txt"],
    ["./dir/../inside.txt", "inside.txt"],
    ["dir//a.txt", "dir/a.txt"],
    ["dir\\a.txt", "dir/a.txt"],
    ["link-in/a.txt", "dir/a.txt"],
    ["chain-in/a.txt", "dir/a.txt"],
    ["dangling-in", "dir/new-target.txt"],
    ["%41.txt", "%41.txt"],
    ["100%.txt", "100%.txt"],
    ["", ""],
    [".", ""],
    ["new/deep/file.txt", "new/deep/file.txt"],
  ])("%j resolves to %j", async (requested, relativePath) => {
    const resolved = await resolveWorkspacePath(root, requested);
    expect(resolved.relativePath).toBe(relativePath);
    expect(resolved.absolutePath).toBe(path.join(root, relativePath));
    expect(resolved.rootPath).toBe(root);
  });

  it("an absolute path inside the root means the same file as its relative form", async () => {
    expect((await resolveWorkspacePath(root, path.join(root, "dir", "a.txt"))).relativePath).toBe("dir/a.txt");
  });

  it("a root given through a symbolic link is refused: a stored root that is no longer real was swapped for a link", async () => {
    const alias = path.join(base, "ws-alias");
    await expect(resolveWorkspacePath(alias, "inside.txt")).rejects.toMatchObject({ code: "path_outside_workspace" });
    await expect(resolveWorkspacePath(alias, path.join(root, "inside.txt"))).rejects.toMatchObject({ code: "path_outside_workspace" });
  });

  it("a missing root is reported as such", async () => {
    await expect(resolveWorkspacePath(path.join(base, "gone"), "x")).rejects.toMatchObject({ code: "workspace_root_missing" });
  });
});

describe("resolveWorkspacePath for writes", () => {
  it.each([
    ["", "invalid_path"],
    [".", "invalid_path"],
    ["dir/", "invalid_path"],
    ["dir", "not_a_file"],
    ["inside.txt/x.txt", "not_a_directory"],
    ["inside.txt/deeper/x.txt", "not_a_directory"],
  ])("%j is refused with %s", async (requested, code) => {
    await expect(resolveWorkspacePath(root, requested, { forWrite: true })).rejects.toMatchObject({ code });
  });

  it("a path longer than PATH_MAX is invalid", async () => {
    await expect(resolveWorkspacePath(root, "a/".repeat(2100))).rejects.toMatchObject({ code: "invalid_path" });
  });
});
