import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { decide, eventually, fileExists, injectedChat, liveJobCount, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";

describe("a side-effecting call after untrusted material pauses for approval", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("run_command after reading an injected file parks the run: no job, no worker, nothing executed", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "ran it" }) });
    const run = await waitForParked(stack, runId);
    expect(run.status).toBe("awaiting_approval");
    expect(run.pending_approvals).toHaveLength(1);
    const pending = run.pending_approvals[0];
    expect(pending).toMatchObject({ tool: "run_command", arguments: { command: "touch pwned" }, effects: ["process"] });
    expect(Date.parse(pending.expires_at)).toBeGreaterThan(Date.now());

    const required = (await stack.events(runId)).filter((event) => event.type === "approval.required");
    expect(required).toHaveLength(1);
    expect(required[0]!.data).toMatchObject({ approval_id: pending.id, tool: "run_command", effects: ["process"], tool_call_id: pending.tool_call_id });

    expect(await fileExists(root, "pwned")).toBe(false);
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(row.tainted).toBe(true);
    expect(row.leaseOwner).toBeNull();
    // The job that executed the run completes right after the park commits.
    await eventually("no live job for the parked run", async () => (await liveJobCount(stack)) === 0);
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");
    expect(await fileExists(root, "pwned")).toBe(false);
  });

  it("allow_task runs the call once, completes the run, and covers a later call of the same tool and effects", async () => {
    const { chatId, workspaceId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen(
        { tool: "run_command", args: { command: "touch first; echo ran >> count" } },
        { tool: "run_command", args: { command: "touch second" } },
        { text: "both done" },
      ),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    const approvalId = parked.pending_approvals[0].id;

    const decision = await decide(stack, approvalId, "allow_task");
    expect(decision.status).toBe(202);
    // Committed by the live worker's first commit of the run, which resumes it: running by the 202.
    expect(decision.body).toEqual({ run_id: runId, status: "running" });

    const run = await waitForFinished(stack, runId);
    expect(run).toMatchObject({ status: "completed", output: "both done", pending_approvals: [] });
    expect(await fileExists(root, "first")).toBe(true);
    expect(await fileExists(root, "second")).toBe(true);
    const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/count`);
    expect(file.body.content).toBe("ran\n");

    const events = await stack.events(runId);
    expectContiguous(events);
    expect(events.filter((event) => event.type === "approval.required")).toHaveLength(1);
    const decided = events.filter((event) => event.type === "approval.decided");
    expect(decided).toHaveLength(1);
    expect(decided[0]!.data).toMatchObject({ approval_id: approvalId, decision: "allow_task", edited: false, decided_by: expect.any(String) });
    const me = (await stack.request("GET", "/api/me")).body;
    expect(decided[0]!.data.decided_by).toBe(me.id);
    expect(events.some((event) => event.type === "run.resumed")).toBe(true);
    const commands = events.filter((event) => event.type === "tool.completed" && event.data.tool === "run_command");
    expect(commands.map((event) => event.data.ok)).toEqual([true, true]);

    const listed = (await stack.request("GET", `/api/chats/${chatId}/approvals`)).body.approvals;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: approvalId,
      run_id: runId,
      tool: "run_command",
      status: "allowed",
      decision: "allow_task",
      decided_by: me.id,
      edited: false,
    });
  });

  it("deny answers the call with a tool error saying the user denied it, runs nothing, and the run completes", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "understood" }),
    });
    const parked = await waitForParked(stack, runId);
    const approvalId = parked.pending_approvals[0].id;
    const decision = await decide(stack, approvalId, "deny");
    expect(decision.status).toBe(202);
    const run = await waitForFinished(stack, runId);
    expect(run).toMatchObject({ status: "completed", output: "understood" });
    expect(await fileExists(root, "pwned")).toBe(false);

    const events = await stack.events(runId);
    expect(events.some((event) => event.type === "tool.started" && event.data.tool === "run_command")).toBe(false);
    const completed = events.find((event) => event.type === "tool.completed" && event.data.tool === "run_command");
    expect(completed?.data).toMatchObject({ ok: false, tool_call_id: parked.pending_approvals[0].tool_call_id });
    expect(completed?.data.error).toMatch(/denied/i);
    expect(events.find((event) => event.type === "approval.decided")?.data).toMatchObject({ decision: "deny", approval_id: approvalId });

    // The model saw the denial as the call's result.
    const lastRequest = stack.provider.requests.filter((request) => JSON.stringify(request.messages).includes(parked.pending_approvals[0].tool_call_id)).at(-1);
    const toolMessage = lastRequest?.messages.find((message) => message.role === "tool" && message.toolCallId === parked.pending_approvals[0].tool_call_id);
    expect(toolMessage && "content" in toolMessage ? toolMessage.content : "").toMatch(/denied/i);

    const listed = (await stack.request("GET", `/api/chats/${chatId}/approvals`)).body.approvals;
    expect(listed[0]).toMatchObject({ id: approvalId, status: "denied", decision: "deny" });
  });

  it("an allow with edited arguments runs the edited call, not the original", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "edited done" }),
    });
    const parked = await waitForParked(stack, runId);
    const approvalId = parked.pending_approvals[0].id;
    const decision = await decide(stack, approvalId, "allow_task", { arguments: { command: "touch edited" } });
    expect(decision.status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
    expect(await fileExists(root, "edited")).toBe(true);
    expect(await fileExists(root, "pwned")).toBe(false);
    const events = await stack.events(runId);
    expect(events.find((event) => event.type === "approval.decided")?.data).toMatchObject({ edited: true, decision: "allow_task" });
    expect(events.find((event) => event.type === "tool.started" && event.data.tool === "run_command")?.data.arguments).toEqual({ command: "touch edited" });
    const listed = (await stack.request("GET", `/api/chats/${chatId}/approvals`)).body.approvals;
    expect(listed[0]).toMatchObject({ edited: true, edited_arguments: { command: "touch edited" }, arguments: { command: "touch pwned" } });
  });

  it("edited arguments that do not fit the tool's schema are a 400 and the approval stays pending", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "ok" }) });
    const parked = await waitForParked(stack, runId);
    const approvalId = parked.pending_approvals[0].id;
    const refused = await decide(stack, approvalId, "allow_task", { arguments: { command: 42 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    const missing = await decide(stack, approvalId, "allow_task", { arguments: { cmd: "touch x" } });
    expect(missing.status).toBe(400);
    const run = await stack.getRun(runId);
    expect(run.status).toBe("awaiting_approval");
    expect(run.pending_approvals.map((approval: any) => approval.id)).toEqual([approvalId]);
    expect(await fileExists(root, "pwned")).toBe(false);
    expect((await stack.events(runId)).some((event) => event.type === "approval.decided")).toBe(false);
    // Still decidable.
    expect((await decide(stack, approvalId, "deny")).status).toBe(202);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed" });
  });
});
