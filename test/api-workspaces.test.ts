import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError } from "@agentq/core";
import { createWorkspace as createWorkspaceInStore, getWorkspace, listWorkspaces } from "../packages/core/src/workspaces/workspace-store.ts";
import { rawRequest, requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;
let fileRoot: string;
let outside: string;
let alice: { id: string; token: string };
let bob: { id: string; token: string };

beforeAll(async () => {
  fileRoot = await realpath(await mkdtemp(join(tmpdir(), "agentq-file-root-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "agentq-outside-")));
  api = await startTestApi({ config: { fileRoots: [fileRoot] } });
  const create = async (name: string) => {
    const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name } });
    expect(response.status).toBe(201);
    return response.body as { id: string; token: string };
  };
  alice = await create("alice");
  bob = await create("bob");
});

afterAll(async () => {
  await api?.close();
  await rm(fileRoot, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function createWorkspace(token: string, name: string): Promise<{ id: string; name: string }> {
  const response = await requestJson(`${api.url}/api/workspaces`, { token, body: { name } });
  expect(response.status).toBe(201);
  return response.body;
}

function filesUrl(workspaceId: string, path: string): string {
  return `${api.url}/api/workspaces/${workspaceId}/files/${path}`;
}

async function putFile(token: string, workspaceId: string, path: string, content: string) {
  return requestJson(filesUrl(workspaceId, path), { method: "PUT", token, body: { content } });
}

describe("workspaces", () => {
  it("creates a directory named after the workspace id under WORKSPACES_ROOT", async () => {
    const workspace = await createWorkspace(alice.token, "project one");
    expect(workspace).toEqual({ id: expect.any(String), name: "project one" });
    const root = await realpath(api.config.workspacesRoot);
    expect(await readdir(root)).toContain(workspace.id);
    const row = await api.prisma.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(row.rootPath).toBe(join(root, workspace.id));
    expect(row.userId).toBe(alice.id);
  });

  it("lists only the caller's own workspaces", async () => {
    const mine = await createWorkspace(alice.token, "alice only");
    const aliceList = await requestJson(`${api.url}/api/workspaces`, { token: alice.token });
    expect(aliceList.status).toBe(200);
    expect(aliceList.body.workspaces).toContainEqual({ id: mine.id, name: "alice only" });
    const bobList = await requestJson(`${api.url}/api/workspaces`, { token: bob.token });
    expect(bobList.status).toBe(200);
    expect(bobList.body.workspaces.map((workspace: { id: string }) => workspace.id)).not.toContain(mine.id);
  });

  it("answers someone else's workspace like a missing one: 404 not_found for GET and PUT", async () => {
    const workspace = await createWorkspace(alice.token, "private");
    expect((await putFile(alice.token, workspace.id, "secret.txt", "alice's")).status).toBe(200);

    const read = await requestJson(filesUrl(workspace.id, "secret.txt"), { token: bob.token });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe("not_found");
    expect(JSON.stringify(read.body)).not.toContain("alice's");

    const write = await putFile(bob.token, workspace.id, "secret.txt", "bob was here");
    expect(write.status).toBe(404);
    expect(write.body.error.code).toBe("not_found");
    const newFile = await putFile(bob.token, workspace.id, "planted.txt", "bob was here");
    expect(newFile.status).toBe(404);

    const missing = await requestJson(filesUrl("ws_does_not_exist", "secret.txt"), { token: bob.token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe(read.body.error.code);

    const stillAlices = await requestJson(filesUrl(workspace.id, "secret.txt"), { token: alice.token });
    expect(stillAlices.body.content).toBe("alice's");
    expect((await requestJson(filesUrl(workspace.id, "planted.txt"), { token: alice.token })).status).toBe(404);
  });

  it("refuses a name that is missing or not a string, naming the field", async () => {
    for (const body of [{}, { name: 5 }, { name: "   " }]) {
      const response = await requestJson(`${api.url}/api/workspaces`, { token: alice.token, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.details.field).toBe("name");
    }
  });
});

describe("workspace files", () => {
  it("round-trips a file, and its revision changes with its content", async () => {
    const workspace = await createWorkspace(alice.token, "files");
    const first = await putFile(alice.token, workspace.id, "docs/notes.md", "# hello\n");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ path: "docs/notes.md", revision: expect.any(String) });

    const read = await requestJson(filesUrl(workspace.id, "docs/notes.md"), { token: alice.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ path: "docs/notes.md", content: "# hello\n", revision: first.body.revision });

    const second = await putFile(alice.token, workspace.id, "docs/notes.md", "# hello, again\n");
    expect(second.status).toBe(200);
    expect(second.body.revision).not.toBe(first.body.revision);
    const reread = await requestJson(filesUrl(workspace.id, "docs/notes.md"), { token: alice.token });
    expect(reread.body.content).toBe("# hello, again\n");
    expect(reread.body.revision).toBe(second.body.revision);

    const row = await api.prisma.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    expect(await readFile(join(row.rootPath, "docs/notes.md"), "utf8")).toBe("# hello, again\n");
  });

  it("writes with base_revision only over that revision: a changed file is 409 revision_mismatch and keeps its content", async () => {
    const workspace = await createWorkspace(alice.token, "conditional");
    const first = await putFile(alice.token, workspace.id, "plan.md", "v1");
    const put = (content: string, baseRevision: string | null) =>
      requestJson(filesUrl(workspace.id, "plan.md"), { method: "PUT", token: alice.token, body: { content, base_revision: baseRevision } });

    const second = await put("v2", first.body.revision);
    expect(second.status).toBe(200);
    const stale = await put("v2 from a stale editor", first.body.revision);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("revision_mismatch");
    expect(stale.body.error.details.current_revision).toBe(second.body.revision);
    expect((await requestJson(filesUrl(workspace.id, "plan.md"), { token: alice.token })).body.content).toBe("v2");

    // null: create only; an existing file is not replaced.
    expect((await put("again", null)).status).toBe(409);
    const created = await requestJson(filesUrl(workspace.id, "new.md"), { method: "PUT", token: alice.token, body: { content: "new", base_revision: null } });
    expect(created.status).toBe(200);
  });

  it("answers a missing file with 404 not_found", async () => {
    const workspace = await createWorkspace(alice.token, "empty");
    const response = await requestJson(filesUrl(workspace.id, "nope.txt"), { token: alice.token });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("not_found");
  });

  it("refuses a content that is not a string, naming the field", async () => {
    const workspace = await createWorkspace(alice.token, "types");
    const response = await requestJson(filesUrl(workspace.id, "a.txt"), { method: "PUT", token: alice.token, body: { content: 42 } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect(response.body.error.details.field).toBe("content");
  });

  it("refuses paths that escape the workspace, encoded or not, and creates nothing outside", async () => {
    const workspace = await createWorkspace(alice.token, "escapes");
    const root = await realpath(api.config.workspacesRoot);
    const before = (await readdir(root)).sort();
    const escapes = [
      "%2e%2e/escape.txt",
      "%2E%2E/escape.txt",
      "..%2fescape.txt",
      "a/%2e%2e/%2e%2e/escape.txt",
      "..%5cescape.txt",
      `%2e%2e/%2e%2e${encodeURIComponent(outside)}/escape.txt`,
      encodeURIComponent(join(outside, "escape.txt")),
    ];
    for (const path of escapes) {
      const write = await rawRequest(api.url, {
        method: "PUT",
        path: `/api/workspaces/${workspace.id}/files/${path}`,
        headers: { authorization: `Bearer ${alice.token}` },
        body: JSON.stringify({ content: "escaped" }),
      });
      expect(write.status, path).toBe(400);
      expect(write.json.error.code, path).toBe("path_outside_workspace");
      const read = await rawRequest(api.url, {
        path: `/api/workspaces/${workspace.id}/files/${path}`,
        headers: { authorization: `Bearer ${alice.token}` },
      });
      expect(read.status, path).toBe(400);
      expect(read.json.error.code, path).toBe("path_outside_workspace");
    }
    expect((await readdir(root)).sort()).toEqual(before);
    expect(await readdir(outside)).toEqual([]);
    expect(existsSync(join(root, "..", "escape.txt"))).toBe(false);
  });

  it("refuses to follow a symbolic link planted inside the workspace to a directory outside", async () => {
    const workspace = await createWorkspace(alice.token, "links");
    const row = await api.prisma.workspace.findUniqueOrThrow({ where: { id: workspace.id } });
    const target = await mkdtemp(join(outside, "target-"));
    await writeFile(join(target, "secret.txt"), "outside secret");
    await symlink(target, join(row.rootPath, "link"));

    const write = await putFile(alice.token, workspace.id, "link/evil.txt", "written through a link");
    expect(write.status).toBe(400);
    expect(write.body.error.code).toBe("path_outside_workspace");
    expect(await readdir(target)).toEqual(["secret.txt"]);

    const read = await requestJson(filesUrl(workspace.id, "link/secret.txt"), { token: alice.token });
    expect(read.status).toBe(400);
    expect(read.body.error.code).toBe("path_outside_workspace");
    expect(JSON.stringify(read.body)).not.toContain("outside secret");
  });
});

describe("registering an existing directory (admin, FILE_ROOTS)", () => {
  it("lets an admin register a directory inside FILE_ROOTS and read its files", async () => {
    const directory = join(fileRoot, "existing");
    await mkdir(directory);
    await writeFile(join(directory, "readme.txt"), "already here");
    const response = await requestJson(`${api.url}/api/workspaces`, {
      token: api.adminToken,
      body: { name: "existing", path: directory },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String), name: "existing" });
    const read = await requestJson(filesUrl(response.body.id, "readme.txt"), { token: api.adminToken });
    expect(read.body.content).toBe("already here");
  });

  it("refuses a directory outside FILE_ROOTS, also through a symbolic link, with 400 path_not_allowed", async () => {
    const disguised = join(fileRoot, "disguised");
    await symlink(outside, disguised);
    for (const path of [outside, disguised, join(fileRoot, "does-not-exist")]) {
      const response = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: { name: "x", path } });
      expect(response.status, path).toBe(400);
      expect(response.body.error.code, path).toBe("path_not_allowed");
    }
  });

  it("refuses path registration from a non-admin with 403", async () => {
    const response = await requestJson(`${api.url}/api/workspaces`, { token: alice.token, body: { name: "x", path: fileRoot } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("forbidden");
  });
});

describe("workspace store", () => {
  it("scopes every lookup by the owner", async () => {
    const workspace = await createWorkspace(alice.token, "scoped");
    await expect(getWorkspace(api.prisma, bob.id, workspace.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await getWorkspace(api.prisma, alice.id, workspace.id)).name).toBe("scoped");
    expect((await listWorkspaces(api.prisma, bob.id)).map((item) => item.id)).not.toContain(workspace.id);
  });

  it("removes the new directory when the database refuses the workspace", async () => {
    const workspacesRoot = await realpath(api.config.workspacesRoot);
    const before = (await readdir(workspacesRoot)).sort();
    await expect(createWorkspaceInStore(api.prisma, "usr_that_does_not_exist", { name: "orphan" }, { workspacesRoot })).rejects.toThrow();
    expect((await readdir(workspacesRoot)).sort()).toEqual(before);
  });
});
