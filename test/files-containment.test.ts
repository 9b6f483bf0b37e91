// Containment of the file tools and the REST file routes at every use (issue 8, items 4 and 8):
// a registered FILE_ROOTS workspace whose directory is later replaced by a link leads nowhere, and a
// directory flipped between a real directory and a link to the outside, as fast as a process can,
// never makes a read, write or listing reach outside.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { createFileTools } from "../packages/core/src/tools/files/create-file-tools.ts";
import { createInMemoryFileReadLedger } from "../packages/core/src/tools/files/in-memory-file-read-ledger.ts";
import type { ToolContext, ToolDefinition } from "../packages/core/src/tools/tool-definition.ts";
import { readWorkspaceFile, writeWorkspaceFile } from "@agentq/core";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

const SECRET = "OUTSIDE-SECRET-CONTENT";

describe("a FILE_ROOTS workspace whose directory is replaced by a link after registration", () => {
  let stack: TestStack;
  let base: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "agentq-roots-")));
    await mkdir(join(base, "fileroot"));
    await mkdir(join(base, "outside"));
    await writeFile(join(base, "outside", "a.txt"), SECRET);
    stack = await startTestStack({ api: { fileRoots: [join(base, "fileroot")] } });
  });
  afterAll(async () => {
    await stack?.close();
    await rm(base, { recursive: true, force: true });
  });

  it("is refused with 400 path_outside_workspace by the routes and by every file tool, and nothing outside is read or written", async () => {
    const directory = join(base, "fileroot", "project");
    await mkdir(directory);
    await writeFile(join(directory, "a.txt"), "inside");
    const registered = await stack.request("POST", "/api/workspaces", { body: { name: "project", path: directory } });
    expect(registered.status).toBe(201);
    const workspaceId = registered.body.id;
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/a.txt`)).body.content).toBe("inside");

    // The registered directory becomes a link to a place outside every file root.
    await rename(directory, join(base, "fileroot", "project-moved"));
    await symlink(join(base, "outside"), directory);

    const read = await stack.request("GET", `/api/workspaces/${workspaceId}/files/a.txt`);
    expect(read.status).toBe(400);
    expect(read.body.error.code).toBe("path_outside_workspace");
    const write = await stack.request("PUT", `/api/workspaces/${workspaceId}/files/new.txt`, { body: { content: "x" } });
    expect(write.status).toBe(400);
    expect(write.body.error.code).toBe("path_outside_workspace");

    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "read_file", args: { path: "a.txt" } },
        { tool: "list_files", args: {} },
        { tool: "search_files", args: { query: "SECRET" } },
        { tool: "write_file", args: { path: "planted.txt", content: "x" } },
        { text: "done" },
      ]),
    });
    const run = await stack.waitForRun(runId);
    expect(run.status).toBe("completed");
    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed");
    expect(results).toHaveLength(4);
    for (const result of results) {
      expect(result.data.ok).toBe(false);
      expect(JSON.stringify(result.data)).not.toContain(SECRET);
    }
    expect(await readdir(join(base, "outside"))).toEqual(["a.txt"]);
  });
});

/** Flips `d` in `workspace` between a real directory and a link to `outside` as fast as it can, in another process. */
function startSwapper(workspace: string, outside: string) {
  const script = `
    const fs = require("node:fs");
    process.chdir(process.argv[1]);
    for (;;) {
      try { fs.renameSync("d", "d.real"); fs.symlinkSync(process.argv[2], "d"); fs.unlinkSync("d"); fs.renameSync("d.real", "d"); } catch {}
    }`;
  const child = spawn(process.execPath, ["-e", script, workspace, outside], { stdio: "ignore" });
  return {
    async stop() {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

describe("a directory flipped between a real directory and a link to the outside", () => {
  let base: string;
  let workspace: string;
  let outside: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "agentq-swap-")));
    workspace = join(base, "ws");
    outside = join(base, "outside");
    await mkdir(join(workspace, "d"), { recursive: true });
    await mkdir(outside);
    await writeFile(join(workspace, "d", "a.txt"), "inside");
    await writeFile(join(outside, "a.txt"), SECRET);
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("never lets a read, write, edit, listing or search reach outside (the REST file functions and the tools)", async () => {
    const tools = new Map<string, ToolDefinition>(createFileTools().map((tool) => [tool.name, tool]));
    const context: ToolContext = {
      runId: "run_swap",
      chatId: "chat_swap",
      userId: "usr_swap",
      workspace: { id: "ws_swap", rootPath: workspace },
      signal: new AbortController().signal,
      fileReads: createInMemoryFileReadLedger(),
      settings: { webFetchAllow: [], processNetwork: false },
    };
    const call = (name: string, args: unknown) => tools.get(name)!.execute(args, context);
    const swapper = startSwapper(workspace, outside);
    const seen: string[] = [];
    let insideReads = 0;
    try {
      for (let round = 0; round < 100; round += 1) {
        const outcomes = await Promise.allSettled([
          ...Array.from({ length: 30 }, () => readWorkspaceFile(workspace, "d/a.txt").then((file) => file.content)),
          writeWorkspaceFile(workspace, `d/w-${round}.txt`, "written").then(() => ""),
          call("read_file", { path: "d/a.txt" }).then((result) => JSON.stringify(result)),
          call("list_files", { path: "d" }).then((result) => JSON.stringify(result)),
          call("search_files", { query: "SECRET" }).then((result) => JSON.stringify(result)),
          call("write_file", { path: `d/t-${round}.txt`, content: "written" }).then((result) => JSON.stringify(result)),
        ]);
        for (const outcome of outcomes) {
          if (outcome.status === "fulfilled") {
            seen.push(outcome.value);
            if (outcome.value === "inside") insideReads += 1;
          } else {
            seen.push(String(outcome.reason?.code ?? outcome.reason));
          }
        }
      }
    } finally {
      await swapper.stop();
    }
    expect(seen.filter((text) => text.includes(SECRET))).toEqual([]);
    // The premise: the race was really run (some reads succeeded inside while the flips went on).
    expect(insideReads).toBeGreaterThan(0);
    // Nothing was created outside, and the outside file is untouched.
    expect(await readdir(outside)).toEqual(["a.txt"]);
    expect(await readFile(join(outside, "a.txt"), "utf8")).toBe(SECRET);
  }, 120_000);
});
