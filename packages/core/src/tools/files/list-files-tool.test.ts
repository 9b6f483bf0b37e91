import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileToolTestWorkspace, errorOf, outputOf } from "./file-tool-test-context.ts";
import type { FileToolTestWorkspace } from "./file-tool-test-context.ts";
import { createListFilesTool } from "./list-files-tool.ts";

let workspace: FileToolTestWorkspace;
beforeEach(async () => {
  workspace = await createFileToolTestWorkspace();
});
afterEach(async () => {
  await workspace.dispose();
});

describe("list_files", () => {
  it("lists recursively with directories marked, .git and node_modules not expanded, links not followed", async () => {
    await workspace.put({
      "README.md": "",
      "src/index.ts": "",
      "src/lib/util.ts": "",
      ".git/HEAD": "",
      "node_modules/pkg/index.js": "",
    });
    await symlink("/etc", path.join(workspace.root, "etc-link"));
    const output = outputOf(await workspace.run(createListFilesTool(), {}));
    expect(output).toBe(
      [
        "8 entries under the workspace root:",
        ".git/ (not expanded)",
        "README.md",
        "etc-link (symbolic link)",
        "node_modules/ (not expanded)",
        "src/",
        "src/index.ts",
        "src/lib/",
        "src/lib/util.ts",
      ].join("\n"),
    );
    expect(output).not.toContain("HEAD");
    expect(output).not.toContain("passwd");
  });

  it("lists a subdirectory with paths relative to the workspace root", async () => {
    await workspace.put({ "src/a.ts": "", "other.txt": "" });
    expect(outputOf(await workspace.run(createListFilesTool(), { path: "src" }))).toBe("1 entries under src/:\nsrc/a.ts");
  });

  it("stops at the entry limit, top levels first, and says how to see more", async () => {
    await workspace.put({ "a/deep/1.txt": "", "a/deep/2.txt": "", "b.txt": "", "c.txt": "" });
    const output = outputOf(await workspace.run(createListFilesTool({ maxEntries: 3 }), {}));
    expect(output).toContain("a/\nb.txt\nc.txt");
    expect(output).not.toContain("a/deep/");
    expect(output).toContain("[Listing stopped at 3 entries");
  });

  it("refuses files, missing directories and escapes", async () => {
    await workspace.put({ "a.txt": "" });
    expect(errorOf(await workspace.run(createListFilesTool(), { path: "a.txt" }))).toContain("is a file, not a directory");
    expect(errorOf(await workspace.run(createListFilesTool(), { path: "missing" }))).toContain("missing does not exist");
    expect((await workspace.run(createListFilesTool(), { path: ".." })).data).toMatchObject({ code: "path_outside_workspace" });
  });

  it("says when a directory is empty", async () => {
    expect(outputOf(await workspace.run(createListFilesTool(), {}))).toBe("the workspace root is empty.");
  });
});
