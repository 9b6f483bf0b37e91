import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileToolTestWorkspace, errorOf, outputOf } from "./file-tool-test-context.ts";
import type { FileToolTestWorkspace } from "./file-tool-test-context.ts";
import { createSearchFilesTool } from "./search-files-tool.ts";

let workspace: FileToolTestWorkspace;
beforeEach(async () => {
  workspace = await createFileToolTestWorkspace();
});
afterEach(async () => {
  await workspace.dispose();
});

describe("search_files", () => {
  it("answers path:line: text for each match, skipping .git, node_modules, binaries and links", async () => {
    await workspace.put({
      "src/a.ts": "const needle = 1;\nother\n  needle again  \n",
      "b.md": "no match here\n",
      ".git/config": "needle in git\n",
      "node_modules/x/index.js": "needle in deps\n",
      "image.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
    });
    await symlink(path.join(workspace.root, "src/a.ts"), path.join(workspace.root, "link.ts"));
    const output = outputOf(await workspace.run(createSearchFilesTool(), { query: "needle" }));
    expect(output).toBe(
      '2 matching line(s) for "needle" in the workspace (1 binary or large file(s) skipped):\n' + "src/a.ts:1: const needle = 1;\nsrc/a.ts:3: needle again",
    );
  });

  it("is case-insensitive for a lower-case query and case-sensitive otherwise", async () => {
    await workspace.put({ "a.txt": "Foo\nfoo\n" });
    expect(outputOf(await workspace.run(createSearchFilesTool(), { query: "foo" }))).toContain("a.txt:1: Foo\na.txt:2: foo");
    const sensitive = outputOf(await workspace.run(createSearchFilesTool(), { query: "Foo" }));
    expect(sensitive).toContain("a.txt:1: Foo");
    expect(sensitive).not.toContain("a.txt:2");
  });

  it("treats the query as plain text, not a regex", async () => {
    await workspace.put({ "a.txt": "a.b\naxb\n" });
    const output = outputOf(await workspace.run(createSearchFilesTool(), { query: "a.b" }));
    expect(output).toContain("a.txt:1: a.b");
    expect(output).not.toContain("axb");
  });

  it("stops at the match limit and says so", async () => {
    await workspace.put({ "many.txt": "hit\n".repeat(50) });
    const output = outputOf(await workspace.run(createSearchFilesTool({ maxMatches: 5 }), { query: "hit" }));
    expect(output.split("\n").filter((line) => line.startsWith("many.txt:"))).toHaveLength(5);
    expect(output).toContain("[Stopped at 5 matches.");
  });

  it("stops at the file limit and says so", async () => {
    await workspace.put({ "1.txt": "x", "2.txt": "x", "3.txt": "x", "4.txt": "hit" });
    const output = outputOf(await workspace.run(createSearchFilesTool({ maxFilesScanned: 2 }), { query: "hit" }));
    expect(output).toContain("[Stopped after searching 2 files");
    expect(output).not.toContain("4.txt");
  });

  it("searches one directory or one file when given a path", async () => {
    await workspace.put({ "src/a.ts": "target\n", "docs/b.md": "target\n" });
    const inSrc = outputOf(await workspace.run(createSearchFilesTool(), { query: "target", path: "src" }));
    expect(inSrc).toContain("src/a.ts:1: target");
    expect(inSrc).not.toContain("docs");
    expect(outputOf(await workspace.run(createSearchFilesTool(), { query: "target", path: "docs/b.md" }))).toContain("docs/b.md:1: target");
  });

  it("says when nothing matches, and refuses missing and outside paths", async () => {
    await workspace.put({ "a.txt": "x" });
    expect(outputOf(await workspace.run(createSearchFilesTool(), { query: "zzz" }))).toBe('No matches for "zzz" in the workspace; 1 file(s) searched.');
    expect(errorOf(await workspace.run(createSearchFilesTool(), { query: "x", path: "nope" }))).toContain("nope does not exist");
    expect((await workspace.run(createSearchFilesTool(), { query: "x", path: "../" })).data).toMatchObject({
      code: "path_outside_workspace",
    });
  });
});
