import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileRevision } from "../../workspaces/workspace-files.ts";
import { createFileToolTestWorkspace, errorOf, outputOf } from "./file-tool-test-context.ts";
import type { FileToolTestWorkspace } from "./file-tool-test-context.ts";
import { createReadFileTool } from "./read-file-tool.ts";

let workspace: FileToolTestWorkspace;
beforeEach(async () => {
  workspace = await createFileToolTestWorkspace();
});
afterEach(async () => {
  await workspace.dispose();
});

const numbered = (count: number) => `${Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n")}\n`;

describe("read_file", () => {
  it("declares itself a tainting read of the files family", () => {
    const tool = createReadFileTool();
    expect([tool.name, tool.family, tool.effects, tool.taints, tool.requiresWorkspace]).toEqual(["read_file", "files", ["read"], true, true]);
  });

  it("shows numbered lines with the revision, and records the read", async () => {
    await workspace.put({ "a.txt": "alpha\nbeta\r\n" });
    const result = await workspace.run(createReadFileTool(), { path: "a.txt" });
    const revision = fileRevision("alpha\nbeta\r\n");
    expect(outputOf(result)).toBe(`a.txt (revision ${revision}, lines 1-2 of 2)\n1\talpha\n2\tbeta`);
    expect(result.data).toMatchObject({ path: "a.txt", revision, total_lines: 2 });
    expect(await workspace.ledger.lastReadRevision("ws_test", "a.txt")).toBe(revision);
  });

  it("pages a long file and says how to get the next page", async () => {
    await workspace.put({ "long.txt": numbered(25) });
    const tool = createReadFileTool({ defaultLineLimit: 10 });
    const first = outputOf(await workspace.run(tool, { path: "long.txt" }));
    expect(first).toContain("lines 1-10 of 25");
    expect(first).toContain(" 1\tline 1\n");
    expect(first).toContain("10\tline 10\n");
    expect(first).not.toContain("line 11");
    expect(first).toContain('[Lines 11-25 are not shown. Call read_file with {"path":"long.txt","offset":11} for the next page.]');
    const last = outputOf(await workspace.run(tool, { path: "long.txt", offset: 21, limit: 10 }));
    expect(last).toContain("lines 21-25 of 25");
    expect(last).toMatch(/25\tline 25$/);
    expect(last).not.toContain("not shown");
  });

  it("ends a page early at the character budget, and cuts very long lines", async () => {
    await workspace.put({ "wide.txt": `${`${"x".repeat(50)}\n`.repeat(10)}${"y".repeat(500)}\n` });
    const tool = createReadFileTool({ maxPageChars: 200, maxLineChars: 100 });
    const page = outputOf(await workspace.run(tool, { path: "wide.txt" }));
    expect(page).toContain("lines 1-3 of 11");
    expect(page).toContain('"offset":4');
    const longLine = outputOf(await workspace.run(tool, { path: "wide.txt", offset: 11 }));
    expect(longLine).toContain(`${"y".repeat(100)}... [line cut at 100 characters]`);
  });

  it("refuses an offset past the end and records nothing", async () => {
    await workspace.put({ "short.txt": "one\n" });
    expect(errorOf(await workspace.run(createReadFileTool(), { path: "short.txt", offset: 5 }))).toContain("short.txt has 1 lines; offset 5 is past its end");
    expect(workspace.ledger.reads.size).toBe(0);
  });

  it("reads an empty file", async () => {
    await workspace.put({ "empty.txt": "" });
    expect(outputOf(await workspace.run(createReadFileTool(), { path: "empty.txt" }))).toContain("is empty");
  });

  it("answers errors the model can act on for missing, binary, directory and outside paths", async () => {
    await workspace.put({ "bin.dat": Buffer.from([1, 0, 2]), "dir/x.txt": "x" });
    const tool = createReadFileTool();
    expect(errorOf(await workspace.run(tool, { path: "nope.txt" }))).toContain("does not exist. Call list_files");
    expect(errorOf(await workspace.run(tool, { path: "bin.dat" }))).toContain("not a UTF-8 text file");
    expect(errorOf(await workspace.run(tool, { path: "dir" }))).toContain("is not a regular file");
    expect((await workspace.run(tool, { path: "../etc/passwd" })).data).toMatchObject({ code: "path_outside_workspace" });
  });

  it("answers an error without a workspace", async () => {
    const result = await createReadFileTool().execute({ path: "a.txt" }, { ...workspace.context, workspace: null });
    expect(errorOf(result)).toContain("needs a workspace");
  });
});
