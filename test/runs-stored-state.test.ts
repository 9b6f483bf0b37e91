import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { injectedChat, readThen, waitForParked } from "./support/approval-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

/** A run parked on two calls of one round, both awaiting approval (the file read tainted the run). */
const TWO_PARKED_CALLS = readThen(
  {
    calls: [
      { tool: "run_command", args: { command: "touch left" } },
      { tool: "run_command", args: { command: "touch right" } },
    ],
  },
  { text: "never reached" },
);

describe("what the API answers about a run is what Postgres holds", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** API.md `Run`, built from the stored rows. */
  async function storedRunView(runId: string) {
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    // Approvals of one round share their creation time: they come in the order of their calls.
    const pending = await stack.prisma.approval.findMany({ where: { runId, status: "pending" } });
    const calls = new Map(
      (await stack.prisma.toolCall.findMany({ where: { id: { in: pending.map((approval) => approval.toolCallRowId) } } })).map((call) => [call.id, call]),
    );
    const approvals = pending
      .map((approval) => ({ approval, call: calls.get(approval.toolCallRowId)! }))
      .sort((a, b) => a.approval.createdAt.getTime() - b.approval.createdAt.getTime() || a.call.round - b.call.round || a.call.position - b.call.position)
      .map(({ approval }) => approval);
    return {
      id: row.id,
      chat_id: row.chatId,
      input: row.input,
      model: row.model,
      mode: row.mode,
      allow_bash: row.allowBash,
      allow_web_search: row.allowWebSearch,
      use_web: row.useWeb,
      // Stored empty (or null, as Prisma declares a list column): no limit.
      tools: row.tools.length > 0 ? row.tools : null,
      status: row.status,
      rounds: row.rounds,
      tool_calls: row.toolCalls,
      output: row.output,
      error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
      pending_approvals: approvals.map((approval) => ({
        id: approval.id,
        tool: approval.tool,
        tool_call_id: approval.toolCallId,
        arguments: approval.arguments,
        effects: approval.effects,
        expires_at: approval.expiresAt.toISOString(),
        tainted_by: approval.taintedBy,
        reason: approval.pauseReason,
      })),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  async function storedEvents(runId: string) {
    const rows = await stack.prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } });
    return rows.map((row) => ({ seq: row.seq, type: row.type, at: row.createdAt.toISOString(), data: row.data }));
  }

  it("a run parked on two calls: GET /api/runs/:id is its row and both pending approvals, in order", async () => {
    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(chatId, { allow_bash: true, input: TWO_PARKED_CALLS });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    const view = await stack.getRun(runId);
    expect(view).toEqual(await storedRunView(runId));
    expect(view.pending_approvals.map((approval: any) => approval.arguments)).toEqual([{ command: "touch left" }, { command: "touch right" }]);
    expect(view.pending_approvals[0]).toMatchObject({ tool: "run_command", effects: ["process"] });
    expect(view.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(view.pending_approvals[0].expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("events are served as stored (seq, type, at in ISO UTC, data), also after a given seq", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "stored as is" }]) });
    await stack.waitForRun(runId);
    const stored = await storedEvents(runId);
    expect(stored.length).toBeGreaterThan(3);
    const served = await stack.request("GET", `/api/runs/${runId}/events`);
    expect(served.body).toEqual({ events: stored, has_more: false });
    expect(await stack.events(runId, 2)).toEqual(stored.slice(2));
    expect(await stack.events(runId, stored.at(-1)!.seq)).toEqual([]);
    expect(stored[0]).toMatchObject({ seq: 1, type: "run.queued", data: { multitask: "reject" } });
  });

  it("a finished run's error is {code, message} from its row, with an empty message when none is stored", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "done" }]) });
    await stack.waitForRun(runId);
    await stack.prisma.run.update({ where: { id: runId }, data: { errorCode: "some_code", errorMessage: "what went wrong" } });
    expect((await stack.getRun(runId)).error).toEqual({ code: "some_code", message: "what went wrong" });
    await stack.prisma.run.update({ where: { id: runId }, data: { errorMessage: null } });
    const view = await stack.getRun(runId);
    expect(view.error).toEqual({ code: "some_code", message: "" });
    expect(view).toEqual(await storedRunView(runId));
  });

  for (const how of ["cancel", "interrupt"] as const) {
    it(`${how === "cancel" ? "cancelling" : "interrupting"} a run parked on two calls answers both, counts them, withdraws the approvals and releases the run`, async () => {
      const { chatId } = await injectedChat(stack);
      const runId = await stack.run(chatId, { allow_bash: true, input: TWO_PARKED_CALLS });
      await waitForParked(stack, runId);
      const before = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } });
      const messagesBefore = await stack.prisma.message.count({ where: { chatId } });

      if (how === "cancel") {
        const response = await stack.request("POST", `/api/runs/${runId}/cancel`);
        expect(response.status).toBe(202);
        expect(response.body).toEqual(await storedRunView(runId));
      } else {
        const response = await stack.startRun(chatId, { input: scenarioInput([{ text: "took over" }]), multitask: "interrupt" });
        expect(response.status).toBe(202);
        await stack.waitForRun(response.body.id);
      }

      const after = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } });
      expect(after).toMatchObject({
        status: "cancelled",
        cancelRequested: true,
        toolCalls: before.toolCalls + 2,
        rounds: before.rounds,
        output: null,
        errorCode: null,
        errorMessage: null,
        leaseOwner: null,
        leaseExpiresAt: null,
        lastEventSeq: before.lastEventSeq + 3,
      });
      expect(after.finishedAt).not.toBeNull();
      expect(after.updatedAt.getTime()).toBe(after.finishedAt!.getTime());

      const approvals = await stack.prisma.approval.findMany({ where: { runId } });
      expect(approvals.map((approval) => approval.status)).toEqual(["cancelled", "cancelled"]);
      const calls = await stack.prisma.toolCall.findMany({ where: { runId, tool: "run_command" }, orderBy: { position: "asc" } });
      for (const call of calls) {
        expect(call).toMatchObject({ status: "completed", ok: false, result: "not executed: the run was cancelled" });
        expect(call.completedAt?.getTime()).toBe(after.finishedAt!.getTime());
      }

      const events = (await storedEvents(runId)).slice(before.lastEventSeq);
      expect(events.map((event) => [event.type, event.data])).toEqual([
        ["tool.completed", { tool_call_id: calls[0]!.callId, tool: "run_command", ok: false, error: "not executed: the run was cancelled" }],
        ["tool.completed", { tool_call_id: calls[1]!.callId, tool: "run_command", ok: false, error: "not executed: the run was cancelled" }],
        ["run.cancelled", { reason: how === "cancel" ? "cancelled by the user" : "interrupted by a newer run of the chat" }],
      ]);
      for (const event of events) expect(event.at).toBe(after.finishedAt!.toISOString());

      const answers = await stack.prisma.message.findMany({ where: { chatId, position: { gt: messagesBefore } }, orderBy: { position: "asc" } });
      expect(answers.slice(0, 2).map((message) => [message.role, message.toolCallId, message.content, message.runId, message.position])).toEqual([
        ["tool", calls[0]!.callId, "Error: not executed: the run was cancelled", runId, messagesBefore + 1],
        ["tool", calls[1]!.callId, "Error: not executed: the run was cancelled", runId, messagesBefore + 2],
      ]);
      const chat = await stack.prisma.chat.findUniqueOrThrow({ where: { id: chatId } });
      expect(chat.messageCount).toBe(await stack.prisma.message.count({ where: { chatId } }));
    });
  }

  it("a new run's row and run.queued event hold the request's switches and one creation time", async () => {
    const chatId = await stack.createChat();
    const response = await stack.startRun(chatId, {
      input: scenarioInput([{ text: "switches" }]),
      mode: "guide",
      allow_bash: true,
      allow_web_search: false,
      use_web: true,
      tools: ["read_file", "list_files"],
      multitask: "enqueue",
    });
    expect(response.status).toBe(202);
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: response.body.id } });
    expect(row).toMatchObject({
      chatId,
      mode: "guide",
      allowBash: true,
      allowWebSearch: false,
      useWeb: true,
      tools: ["read_file", "list_files"],
      model: "fake-model",
      cancelRequested: false,
    });
    const [queued] = await storedEvents(row.id);
    expect(queued).toEqual({ seq: 1, type: "run.queued", at: row.createdAt.toISOString(), data: { multitask: "enqueue" } });
    await stack.waitForRun(row.id);
  });
});
