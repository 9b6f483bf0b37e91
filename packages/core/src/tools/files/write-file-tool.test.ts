import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileRevision } from "../../workspaces/workspace-files.ts";
import { createFileToolTestWorkspace, errorOf, outputOf } from "./file-tool-test-context.ts";
import type { FileToolTestWorkspace } from "./file-tool-test-context.ts";
import { createReadFileTool } from "./read-file-tool.ts";
import { createWriteFileTool } from "./write-file-tool.ts";

let workspace: FileToolTestWorkspace;
beforeEach(async () => {
  workspace = await createFileToolTestWorkspace();
});
afterEach(async () => {
  await workspace.dispose();
});

const content = (relativePath: string) => readFile(path.join(workspace.root, relativePath), "utf8");

describe("write_file", () => {
  it("declares a non-tainting write that targets its path", () => {
    const tool = createWriteFileTool();
    expect([tool.name, tool.family, tool.effects, tool.taints, tool.requiresWorkspace]).toEqual(["write_file", "files", ["write"], false, true]);
    expect(tool.targetPath?.({ path: "src/a.ts", content: "" })).toBe("src/a.ts");
  });

  it("creates a new file (and its directories) without a prior read, and records it as read", async () => {
    const result = await workspace.run(createWriteFileTool(), { path: "src/new.ts", content: "a\nb\n" });
    expect(outputOf(result)).toBe(`Created src/new.ts (4 bytes, 2 lines, revision ${fileRevision("a\nb\n")}).`);
    expect(result.data).toEqual({ path: "src/new.ts", revision: fileRevision("a\nb\n"), created: true });
    expect(await content("src/new.ts")).toBe("a\nb\n");
    expect(await workspace.ledger.lastReadRevision("ws_test", "src/new.ts")).toBe(fileRevision("a\nb\n"));
  });

  it("refuses to overwrite an existing file this run has not read", async () => {
    await workspace.put({ "a.txt": "original" });
    const error = errorOf(await workspace.run(createWriteFileTool(), { path: "a.txt", content: "new" }));
    expect(error).toBe("a.txt already exists and you have not read it in this run. Call read_file on a.txt first, then make your change.");
    expect(await content("a.txt")).toBe("original");
  });

  it("overwrites a file read at its current revision, and can write again right after", async () => {
    await workspace.put({ "a.txt": "original" });
    outputOf(await workspace.run(createReadFileTool(), { path: "a.txt" }));
    expect(outputOf(await workspace.run(createWriteFileTool(), { path: "a.txt", content: "second" }))).toMatch(/^Replaced a\.txt/);
    expect(outputOf(await workspace.run(createWriteFileTool(), { path: "a.txt", content: "third" }))).toMatch(/^Replaced a\.txt/);
    expect(await content("a.txt")).toBe("third");
  });

  it("refuses when the file changed since it was read, telling the model to read it again", async () => {
    await workspace.put({ "a.txt": "original" });
    outputOf(await workspace.run(createReadFileTool(), { path: "a.txt" }));
    await writeFile(path.join(workspace.root, "a.txt"), "changed by the user");
    const result = await workspace.run(createWriteFileTool(), { path: "a.txt", content: "mine" });
    expect(errorOf(result)).toContain("a.txt has changed since you read it");
    expect(errorOf(result)).toContain("Call read_file on a.txt again");
    expect(result.data).toMatchObject({ code: "stale_read", read_revision: fileRevision("original") });
    expect(await content("a.txt")).toBe("changed by the user");
  });

  it("a read through another spelling of the path counts for the same file", async () => {
    await workspace.put({ "dir/a.txt": "original" });
    outputOf(await workspace.run(createReadFileTool(), { path: "./dir/../dir/a.txt" }));
    expect(outputOf(await workspace.run(createWriteFileTool(), { path: "dir/a.txt", content: "new" }))).toMatch(/^Replaced/);
  });

  it("refuses escapes and directories, creating nothing", async () => {
    await workspace.put({ "dir/x.txt": "" });
    expect((await workspace.run(createWriteFileTool(), { path: "../evil.txt", content: "x" })).data).toMatchObject({
      code: "path_outside_workspace",
    });
    expect((await workspace.run(createWriteFileTool(), { path: "dir", content: "x" })).data).toMatchObject({ code: "not_a_file" });
    expect(await readdir(path.dirname(workspace.root))).toEqual(["ws"]);
  });
});
