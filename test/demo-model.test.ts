// The built-in demo model (`agentq/demo`, issue 16 item 2), in-process through the real loop and
// model router: it lists, reads, proposes a note that waits for approval, and answers in text.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModelRouter } from "@agentq/core";
import { startLoopHarness, type LoopHarness } from "./support/loop-harness.ts";

describe("the demo model", () => {
  let loop: LoopHarness;
  beforeAll(async () => {
    // No server behind the OpenAI endpoint: the demo must not need one.
    loop = await startLoopHarness({ models: createModelRouter({ openai: { baseURL: "http://127.0.0.1:9/v1", apiKey: "none" }, demoWordDelayMs: 0 }) });
  });
  afterAll(async () => {
    await loop?.close();
  });

  it("lists and reads the workspace, proposes a note that waits for approval, writes it once allowed and says so", async () => {
    const workspace = await loop.createWorkspace();
    await writeFile(path.join(workspace.rootPath, "README.md"), "# Team handbook\nHow we work.\n");
    const chatId = await loop.createChat(workspace.id);
    const runId = await loop.startRun(chatId, [], { model: "agentq/demo", input: "summarize the handbook" });
    expect((await loop.execute(runId)).kind).toBe("parked");
    const approval = await loop.prisma.approval.findFirstOrThrow({ where: { runId } });
    expect(approval).toMatchObject({ tool: "write_file", targetPath: "agentq-demo-notes.md", status: "pending" });
    const calls = (await loop.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data.tool);
    expect(calls).toEqual(["list_files", "read_file"]);

    await loop.decide(approval.id, "allow_task");
    const outcome = await loop.execute(runId);
    expect(outcome).toMatchObject({ kind: "completed", output: expect.stringContaining("I wrote agentq-demo-notes.md") });
    const note = await readFile(path.join(workspace.rootPath, "agentq-demo-notes.md"), "utf8");
    expect(note).toContain("Task: summarize the handbook");
    expect(note).toContain("README.md has 2 lines; its first line is: # Team handbook");
  });

  it("says the note was not written when the person denies it", async () => {
    const workspace = await loop.createWorkspace();
    await writeFile(path.join(workspace.rootPath, "plan.txt"), "ship it");
    const runId = await loop.startRun(await loop.createChat(workspace.id), [], { model: "agentq/demo" });
    expect((await loop.execute(runId)).kind).toBe("parked");
    await loop.decide((await loop.prisma.approval.findFirstOrThrow({ where: { runId } })).id, "deny");
    expect(await loop.execute(runId)).toMatchObject({
      kind: "completed",
      output: expect.stringContaining("The note was not written: the user denied this call"),
    });
  });

  it("without a workspace it explains itself in text, with no tool call", async () => {
    const runId = await loop.startRun(await loop.createChat(), [], { model: "agentq/demo", input: "hello" });
    expect(await loop.execute(runId)).toMatchObject({ kind: "completed", output: expect.stringContaining("This is agentq's demo model") });
    expect((await loop.events(runId)).some((event) => event.type === "tool.started")).toBe(false);
  });
});
