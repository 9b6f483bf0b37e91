// The loop's rules in-process (scripted model, cloned database, no API or worker): the executor's
// check against the tools sent in the round, tool failures as data, the guards and the approval pause.
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultSettings } from "@agentq/core/settings/agent-settings";
import type { ToolDefinition } from "@agentq/core/tools/tool-definition";
import { startLoopHarness, type LoopHarness } from "./support/loop-harness.ts";

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });

function failingTool(name: string, execute: () => Promise<never>): ToolDefinition {
  return { name, family: "files", description: "fails (test)", parameters: z.object({}), effects: ["read"], taints: false, requiresWorkspace: false, execute };
}

describe("the run loop in-process", () => {
  let loop: LoopHarness;
  let workspace: { id: string; rootPath: string };
  beforeAll(async () => {
    loop = await startLoopHarness({
      extraTools: [
        failingTool("throw_at_once", () => {
          throw new Error("disk on fire");
        }),
        failingTool("reject_later", async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new TypeError("cannot read properties of undefined");
        }),
      ],
    });
    workspace = await loop.createWorkspace();
  });
  afterAll(async () => {
    await loop?.close();
  });

  const run = async (steps: Parameters<LoopHarness["startRun"]>[1], input: Parameters<LoopHarness["startRun"]>[2] = {}) => {
    const chatId = await loop.createChat(workspace.id);
    const runId = await loop.startRun(chatId, steps, input);
    const requestsBefore = loop.model.requests.length;
    const outcome = await loop.execute(runId);
    const events = await loop.events(runId);
    return { runId, outcome, events, requests: loop.model.requests.slice(requestsBefore) };
  };

  it("a call emitted in the round that had its tools withdrawn is refused and nothing runs; the next round has its tools back", async () => {
    await loop.settings(defaultSettings());
    const { outcome, events, requests } = await run([
      call("list_files"),
      call("list_files"),
      call("list_files"),
      call("write_file", { path: "final-round.txt", content: "must not exist" }),
      { text: "answered" },
    ]);
    expect(outcome).toEqual({ kind: "completed", output: "answered" });
    expect(requests.map((request) => request.tools.length)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), 0, expect.any(Number)]);
    expect(requests[4]!.tools.length).toBeGreaterThan(0);
    const refused = events.find((event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(refused?.data).toMatchObject({ ok: false, error: expect.stringContaining("no tools were offered") });
    expect(events.some((event) => event.type === "tool.started" && event.data.tool === "write_file")).toBe(false);
    expect(await readdir(workspace.rootPath)).not.toContain("final-round.txt");
  });

  it("a handler that throws or rejects becomes an error result naming the failure, and the run goes on", async () => {
    const { outcome, events, requests } = await run([call("throw_at_once"), call("reject_later"), { text: "both failed" }]);
    expect(outcome).toEqual({ kind: "completed", output: "both failed" });
    const results = events.filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results).toEqual([
      expect.objectContaining({ tool: "throw_at_once", ok: false, error: expect.stringContaining("disk on fire") }),
      expect.objectContaining({ tool: "reject_later", ok: false, error: expect.stringContaining("cannot read properties of undefined") }),
    ]);
    const toolMessages = requests
      .at(-1)!
      .messages.filter((message) => message.role === "tool")
      .map((message) => String(message.content));
    expect(toolMessages).toEqual([expect.stringContaining("disk on fire"), expect.stringContaining("cannot read properties of undefined")]);
  });

  it("an unknown tool, malformed arguments and a tool the run is not offered are tool errors; nothing starts", async () => {
    const { outcome, events } = await run([
      call("no_such_tool"),
      { toolCalls: [{ name: "read_file", arguments: '{"path": "a.txt"' }] },
      call("run_command", { command: "touch ran" }),
      { text: "recovered" },
    ]);
    expect(outcome).toEqual({ kind: "completed", output: "recovered" });
    const results = events.filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results.map((result) => result.ok)).toEqual([false, false, false]);
    expect(results[0]!.error).toMatch(/no tool named "no_such_tool"/);
    expect(results[1]!.error).toMatch(/JSON/);
    expect(results[2]!.error).toMatch(/no tool named "run_command"/);
    expect(events.filter((event) => event.type === "tool.started")).toHaveLength(0);
  });

  it("the call budget refuses calls past agent_max_tool_calls and the round budget ends a run that keeps calling", async () => {
    await loop.settings({ agent_max_tool_calls: 1 });
    const budget = await run([call("list_files"), call("list_files", { path: "." }), { text: "budget reached" }]);
    expect(budget.outcome).toEqual({ kind: "completed", output: "budget reached" });
    expect(budget.events.find((event) => event.type === "guard.triggered")?.data).toMatchObject({ guard: "call_budget", limit: 1 });
    await loop.settings({ agent_max_tool_calls: 0, agent_max_rounds: 2 });
    const rounds = await run([call("list_files"), call("list_files", { path: "." }), call("read_file", { path: "x" })]);
    expect(rounds.outcome).toMatchObject({ kind: "failed", error: { code: "round_budget" } });
    expect(rounds.events.at(-2)).toMatchObject({ type: "guard.triggered", data: { guard: "round_budget" } });
    await loop.settings(defaultSettings());
  });

  it("a write after a file read pauses for approval: the run parks with a sealed record and nothing is written", async () => {
    await writeFile(path.join(workspace.rootPath, "notes.md"), "write the plan to plan.md");
    const { outcome, events, runId } = await run([call("read_file", { path: "notes.md" }), call("write_file", { path: "plan.md", content: "the plan" })]);
    expect(outcome.kind).toBe("parked");
    const required = events.find((event) => event.type === "approval.required");
    expect(required?.data).toMatchObject({ tool: "write_file", effects: ["write"] });
    const approval = await loop.prisma.approval.findFirstOrThrow({ where: { runId } });
    expect(approval).toMatchObject({ status: "pending", tool: "write_file", targetPath: "plan.md" });
    expect((await loop.prisma.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("awaiting_approval");
    expect(await readdir(workspace.rootPath)).not.toContain("plan.md");
  });
});
