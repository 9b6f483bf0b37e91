import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

describe("GET /api/workspaces/:id/tree", () => {
  let api: TestApi;
  let workspaceId: string;
  let root: string;
  const tree = (query = "", token = api.adminToken, id = workspaceId) => requestJson(`${api.url}/api/workspaces/${id}/tree${query}`, { token });

  beforeAll(async () => {
    api = await startTestApi();
    const created = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: { name: "tree" } });
    workspaceId = created.body.id;
    root = (await api.prisma.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).rootPath;
    await mkdir(path.join(root, "src", "deep"), { recursive: true });
    await mkdir(path.join(root, "Docs"));
    await writeFile(path.join(root, "b.txt"), "12345");
    await writeFile(path.join(root, "a.md"), "");
    await writeFile(path.join(root, "src", "main.ts"), "export {};\n");
    await symlink("/etc", path.join(root, "escape"));
    await symlink("src", path.join(root, "inside"));
  });
  afterAll(async () => {
    await api?.close();
  });

  it("lists one level, directories first then by name, with file sizes; symlinks are listed, not followed", async () => {
    const response = await tree();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      path: "",
      truncated: false,
      entries: [
        { name: "Docs", path: "Docs", type: "directory", size: null },
        { name: "src", path: "src", type: "directory", size: null },
        { name: "a.md", path: "a.md", type: "file", size: 0 },
        { name: "b.txt", path: "b.txt", type: "file", size: 5 },
        { name: "escape", path: "escape", type: "symlink", size: null },
        { name: "inside", path: "inside", type: "symlink", size: null },
      ],
    });
    expect((await tree("?path=")).body).toEqual(response.body);
  });

  it("lists a subdirectory by its workspace-relative path", async () => {
    const response = await tree("?path=src");
    expect(response.body).toEqual({
      path: "src",
      truncated: false,
      entries: [
        { name: "deep", path: "src/deep", type: "directory", size: null },
        { name: "main.ts", path: "src/main.ts", type: "file", size: 11 },
      ],
    });
    expect((await tree("?path=src/")).body).toEqual(response.body);
    expect((await tree("?path=src/deep")).body).toEqual({ path: "src/deep", truncated: false, entries: [] });
  });

  it("applies the file routes' containment: escapes are 400 path_outside_workspace, a link that leaves is never listed through", async () => {
    for (const query of ["?path=..", "?path=../..", "?path=/etc", "?path=escape", "?path=escape/ssl", "?path=src/../../x"]) {
      const response = await tree(query);
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({ query, status: 400, code: "path_outside_workspace" });
    }
    // A link inside the workspace names the directory it leads to.
    expect((await tree("?path=inside")).body.path).toBe("src");
  });

  it("a file is 400 invalid_request naming path; nothing there is 404; someone else's workspace is 404", async () => {
    const file = await tree("?path=b.txt");
    expect(file.status).toBe(400);
    expect(file.body.error).toMatchObject({ code: "invalid_request", details: { field: "path" } });
    const missing = await tree("?path=nope/deeper");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");

    const other = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: "tree-other" } });
    expect((await tree("", other.body.token)).status).toBe(404);
    expect((await tree("", api.adminToken, "ws_nope")).status).toBe(404);
    const nul = await rawRequest(api.url, { path: `/api/workspaces/${workspaceId}/tree?path=a%00b`, headers: { authorization: `Bearer ${api.adminToken}` } });
    expect(nul.status).toBe(400);
  });

  it("returns at most 1000 entries, directories first, and says the listing is truncated", async () => {
    const crowded = path.join(root, "crowded");
    await mkdir(crowded);
    await Promise.all(Array.from({ length: 1005 }, (_, index) => writeFile(path.join(crowded, `f${String(index).padStart(4, "0")}`), "")));
    await mkdir(path.join(crowded, "zz-dir"));
    const response = await tree("?path=crowded");
    expect(response.status).toBe(200);
    expect(response.body.truncated).toBe(true);
    expect(response.body.entries).toHaveLength(1000);
    expect(response.body.entries[0]).toEqual({ name: "zz-dir", path: "crowded/zz-dir", type: "directory", size: null });
    expect(response.body.entries[1].name).toBe("f0000");
    expect(response.body.entries[999].name).toBe("f0998");
  });
});
