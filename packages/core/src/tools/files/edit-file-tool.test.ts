import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileRevision } from "../../workspaces/workspace-files.ts";
import { countOccurrences, createEditFileTool } from "./edit-file-tool.ts";
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

const content = (relativePath: string) => readFile(path.join(workspace.root, relativePath), "utf8");
const read = async (relativePath: string) => outputOf(await workspace.run(createReadFileTool(), { path: relativePath }));

describe("edit_file", () => {
  it("declares a write that targets its path", () => {
    const tool = createEditFileTool();
    expect([tool.name, tool.effects, tool.taints]).toEqual(["edit_file", ["write"], false]);
    expect(tool.targetPath?.({ path: "a.ts", old_text: "a", new_text: "b" })).toBe("a.ts");
  });

  it("replaces the one occurrence, shows the edited lines and records the new revision", async () => {
    await workspace.put({ "a.ts": "one\ntwo\nthree\nfour\n" });
    await read("a.ts");
    const result = await workspace.run(createEditFileTool({ contextLines: 1 }), { path: "a.ts", old_text: "three", new_text: "THREE $& $1" });
    const expected = "one\ntwo\nTHREE $& $1\nfour\n";
    expect(await content("a.ts")).toBe(expected);
    expect(outputOf(result)).toBe(`Edited a.ts (revision ${fileRevision(expected)}). Lines 2-4 now read:\n2\ttwo\n3\tTHREE $& $1\n4\tfour`);
    expect(await workspace.ledger.lastReadRevision("ws_test", "a.ts")).toBe(fileRevision(expected));
    // The recorded revision allows a second edit without re-reading.
    outputOf(await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "four", new_text: "4" }));
    expect(await content("a.ts")).toBe("one\ntwo\nTHREE $& $1\n4\n");
  });

  it("says old_text occurred 0 times and changes nothing", async () => {
    await workspace.put({ "a.ts": "alpha\n" });
    await read("a.ts");
    const result = await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "beta", new_text: "x" });
    expect(errorOf(result)).toContain("old_text was not found in a.ts (0 occurrences)");
    expect(result.data).toMatchObject({ occurrences: 0 });
    expect(await content("a.ts")).toBe("alpha\n");
  });

  it("hints when old_text carries read_file's line-number prefixes", async () => {
    await workspace.put({ "a.ts": "alpha\nbeta\n" });
    await read("a.ts");
    const error = errorOf(await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "1\talpha\n2\tbeta", new_text: "x" }));
    expect(error).toContain("line-number prefixes");
  });

  it("says how many times an ambiguous old_text occurred, overlaps included", async () => {
    await workspace.put({ "a.ts": "x = 1;\nx = 1;\nx = 1;\n" });
    await read("a.ts");
    const result = await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "x = 1;", new_text: "x = 2;" });
    expect(errorOf(result)).toContain("old_text occurs 3 times in a.ts");
    expect(result.data).toMatchObject({ occurrences: 3 });
    expect(countOccurrences("aaa", "aa")).toBe(2);
    expect(await content("a.ts")).toBe("x = 1;\nx = 1;\nx = 1;\n");
  });

  it("requires a read of the current revision", async () => {
    await workspace.put({ "a.ts": "alpha\n" });
    expect(errorOf(await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "alpha", new_text: "beta" }))).toContain(
      "you have not read it in this run",
    );
    await read("a.ts");
    await writeFile(path.join(workspace.root, "a.ts"), "alpha changed\n");
    expect(errorOf(await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "alpha", new_text: "beta" }))).toContain(
      "has changed since you read it",
    );
    expect(await content("a.ts")).toBe("alpha changed\n");
  });

  it("matches LF old_text in a CRLF file and keeps CRLF line ends", async () => {
    await workspace.put({ "win.txt": "one\r\ntwo\r\nthree\r\n" });
    await read("win.txt");
    outputOf(await workspace.run(createEditFileTool(), { path: "win.txt", old_text: "one\ntwo", new_text: "1\n2" }));
    expect(await content("win.txt")).toBe("1\r\n2\r\nthree\r\n");
  });

  it("refuses a missing file, an identical replacement and an empty old_text", async () => {
    await workspace.put({ "a.ts": "alpha\n" });
    await read("a.ts");
    expect(errorOf(await workspace.run(createEditFileTool(), { path: "b.ts", old_text: "a", new_text: "b" }))).toContain("does not exist");
    expect(errorOf(await workspace.run(createEditFileTool(), { path: "a.ts", old_text: "alpha", new_text: "alpha" }))).toContain("nothing to change");
    expect(createEditFileTool().parameters.safeParse({ path: "a.ts", old_text: "", new_text: "x" }).success).toBe(false);
  });
});
