// The loop's rules in-process (scripted model, cloned database, no API or worker): the executor's
// check against the tools sent in the round, tool failures as data, the guards and the approval pause.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultSettings } from "../packages/core/src/settings/agent-settings.ts";
import type { ToolDefinition } from "@agentq/core";
import { startLoopHarness, type LoopHarness } from "./support/loop-harness.ts";

const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });

function failingTool(name: string, execute: () => Promise<never>): ToolDefinition {
  return { name, family: "files", description: "fails (test)", parameters: z.object({}), effects: ["read"], taints: false, requiresWorkspace: false, execute };
}

/** Executions of each lease-stealing tool, by run. */
const executions = new Map<string, number>();

/**
 * A tool whose first execution in a run ends with another worker taking the run over (its lease
 * version bumped, as a take-over after an expired lease does): the crash point "lease lost mid-round".
 */
function leaseStealingTool(name: string, effects: ToolDefinition["effects"]): ToolDefinition {
  return {
    name,
    family: "files",
    description: "test tool",
    parameters: z.object({}),
    effects,
    taints: false,
    requiresWorkspace: false,
    execute: async (_args, context) => {
      const key = `${name}:${context.runId}`;
      const count = (executions.get(key) ?? 0) + 1;
      executions.set(key, count);
      if (count === 1) await stealLease(context.runId);
      return { ok: true, output: `${name} done` };
    },
  };
}

let stealLease: (runId: string) => Promise<void>;

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
        leaseStealingTool("send_report", ["network"]),
        leaseStealingTool("count_lines", ["read"]),
      ],
    });
    workspace = await loop.createWorkspace();
    stealLease = async (runId) => {
      await loop.prisma.run.update({ where: { id: runId }, data: { leaseVersion: { increment: 1 }, leaseExpiresAt: null, leaseOwner: null } });
    };
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
    const rounds = await run([call("list_files"), call("list_files", { path: "." })]);
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

  it("an allowed call runs when the run resumes, and a denied one is answered as denied; the run completes", async () => {
    await writeFile(path.join(workspace.rootPath, "todo.md"), "write a.txt and b.txt");
    const chatId = await loop.createChat(workspace.id);
    const runId = await loop.startRun(chatId, [
      call("read_file", { path: "todo.md" }),
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "a.txt", content: "A" } },
          { name: "write_file", arguments: { path: "b.txt", content: "B" } },
        ],
      },
      { text: "wrote what I was allowed to" },
    ]);
    expect((await loop.execute(runId)).kind).toBe("parked");
    const approvals = await loop.prisma.approval.findMany({ where: { runId } });
    const approvalFor = (file: string) => approvals.find((approval) => (approval.arguments as { path?: string }).path === file)!;
    // Denied first: an allow_task would also cover the other pending call of the same tool.
    await loop.decide(approvalFor("a.txt").id, "deny");
    expect(loop.scheduled).not.toContain(runId);
    await loop.decide(approvalFor("b.txt").id, "allow_task");
    expect(loop.scheduled).toContain(runId);
    expect(await loop.execute(runId)).toEqual({ kind: "completed", output: "wrote what I was allowed to" });
    const results = (await loop.events(runId))
      .filter((event) => event.type === "tool.completed" && event.data.tool === "write_file")
      .map((event) => event.data);
    expect(results).toEqual([expect.objectContaining({ ok: false, error: "the user denied this call" }), expect.objectContaining({ ok: true })]);
    expect(await readFile(path.join(workspace.rootPath, "b.txt"), "utf8")).toBe("B");
    expect(await readdir(workspace.rootPath)).not.toContain("a.txt");
  });

  it("an approved write whose file changed after the decision is not executed when the run resumes", async () => {
    await writeFile(path.join(workspace.rootPath, "draft.md"), "v1");
    const chatId = await loop.createChat(workspace.id);
    const runId = await loop.startRun(chatId, [
      call("read_file", { path: "draft.md" }),
      call("write_file", { path: "draft.md", content: "overwritten" }),
      { text: "it changed" },
    ]);
    expect((await loop.execute(runId)).kind).toBe("parked");
    const approval = await loop.prisma.approval.findFirstOrThrow({ where: { runId } });
    await loop.decide(approval.id, "allow_task");
    await writeFile(path.join(workspace.rootPath, "draft.md"), "v2 by a person");
    expect((await loop.execute(runId)).kind).toBe("completed");
    const result = (await loop.events(runId)).find((event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(result?.data).toMatchObject({ ok: false, error: expect.stringContaining("changed after the call was approved") });
    expect(await readFile(path.join(workspace.rootPath, "draft.md"), "utf8")).toBe("v2 by a person");
  });

  it("a lease lost mid-round: the execution writes nothing more, and the next one answers the side-effecting call 'outcome unknown' without running it again", async () => {
    const { runId, outcome, events } = await run([call("send_report"), { text: "reported" }]);
    expect(outcome).toEqual({ kind: "lease_lost" });
    expect(events.at(-1)).toMatchObject({ type: "tool.started", data: { tool: "send_report" } });
    expect(await loop.execute(runId)).toEqual({ kind: "completed", output: "reported" });
    const after = await loop.events(runId);
    expect(after.map((event) => event.seq)).toEqual(after.map((_, index) => index + 1));
    expect(after.find((event) => event.type === "run.resumed")?.data).toEqual({ reason: "recovered" });
    expect(after.find((event) => event.type === "tool.completed")?.data).toMatchObject({ ok: false, error: expect.stringContaining("outcome unknown") });
    expect(executions.get(`send_report:${runId}`)).toBe(1);
  });

  it("a lease lost mid-round with a read-only call: the next execution runs the call again and answers it normally", async () => {
    const { runId, outcome } = await run([call("count_lines"), { text: "counted" }]);
    expect(outcome).toEqual({ kind: "lease_lost" });
    expect(await loop.execute(runId)).toEqual({ kind: "completed", output: "counted" });
    const completed = (await loop.events(runId)).filter((event) => event.type === "tool.completed");
    expect(completed.map((event) => event.data)).toEqual([expect.objectContaining({ tool: "count_lines", ok: true, result: "count_lines done" })]);
    expect(executions.get(`count_lines:${runId}`)).toBe(2);
  });

  it("a model that promises an action without calling a tool is nudged once, then its answer ends the run", async () => {
    const { outcome, events, requests } = await run([{ text: "I will now read the file." }, { text: "I will now read the file." }]);
    expect(outcome).toEqual({ kind: "completed", output: "I will now read the file." });
    expect(events.filter((event) => event.type === "guard.triggered").map((event) => event.data)).toEqual([{ guard: "promised_action", round: 1 }]);
    expect(requests[1]!.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("did not call a tool") });
  });

  it("the file-read rule across executions: a read commits with its result, so an edit after a resume is allowed and an unread file's overwrite is not", async () => {
    await writeFile(path.join(workspace.rootPath, "ledger.md"), "draft one");
    await writeFile(path.join(workspace.rootPath, "unread.md"), "keep me");
    const { runId, outcome } = await run([
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "ledger.md" } },
          { name: "send_report", arguments: {} },
        ],
      },
    ]);
    expect(outcome).toEqual({ kind: "lease_lost" });
    expect(await loop.prisma.runFileRead.count({ where: { runId, path: "ledger.md" } })).toBe(1);
    // The read tainted the run: both writes pause, and are allowed; the resumed execution checks the ledger.
    loop.model.enqueue(
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "ledger.md", old_text: "one", new_text: "two" } },
          { name: "write_file", arguments: { path: "unread.md", content: "overwritten" } },
        ],
      },
      { text: "edited" },
    );
    expect((await loop.execute(runId)).kind).toBe("parked");
    for (const approval of await loop.prisma.approval.findMany({ where: { runId } })) await loop.decide(approval.id, "allow_task");
    expect(await loop.execute(runId)).toEqual({ kind: "completed", output: "edited" });
    const results = (await loop.events(runId)).filter((event) => event.type === "tool.completed").map((event) => event.data);
    expect(results.find((result) => result.tool === "edit_file")).toMatchObject({ ok: true });
    expect(results.find((result) => result.tool === "write_file")).toMatchObject({ ok: false, error: expect.stringContaining("you have not read it") });
    expect(await readFile(path.join(workspace.rootPath, "ledger.md"), "utf8")).toBe("draft two");
    expect(await readFile(path.join(workspace.rootPath, "unread.md"), "utf8")).toBe("keep me");
  });
});
