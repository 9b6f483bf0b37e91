import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput, type ScenarioStep } from "@agentq/core/testing/scenario-responder";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { decide, eventually, fileExists, INJECTION, liveJobCount, waitForFinished, waitForParked, workspaceRoot } from "./support/approval-test-helpers.ts";

/** A chat with a workspace holding the injected file, and the workspace's directory on disk. */
async function injectedChat(stack: TestStack): Promise<{ chatId: string; workspaceId: string; root: string }> {
  const workspaceId = await stack.createWorkspace();
  await stack.putFile(workspaceId, "notes.md", INJECTION);
  const chatId = await stack.createChat({ workspaceId });
  return { chatId, workspaceId, root: await workspaceRoot(stack, workspaceId) };
}

function readThen(...steps: ScenarioStep[]): string {
  return scenarioInput([{ tool: "read_file", args: { path: "notes.md" } }, ...steps]);
}

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
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch first; echo ran >> count" } }, { tool: "run_command", args: { command: "touch second" } }, { text: "both done" }),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.status).toBe("awaiting_approval");
    const approvalId = parked.pending_approvals[0].id;

    const decision = await decide(stack, approvalId, "allow_task");
    expect(decision.status).toBe(202);
    expect(decision.body).toEqual({ run_id: runId, status: "queued" });

    const run = await waitForFinished(stack, runId);
    expect(run).toMatchObject({ status: "completed", output: "both done", pending_approvals: [] });
    expect(await fileExists(root, "first")).toBe(true);
    expect(await fileExists(root, "second")).toBe(true);
    const file = await stack.request("GET", `/api/workspaces/${(await stack.prisma.chat.findUniqueOrThrow({ where: { id: chatId } })).workspaceId}/files/count`);
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
    expect(listed[0]).toMatchObject({ id: approvalId, run_id: runId, tool: "run_command", status: "allowed", decision: "allow_task", decided_by: me.id, edited: false });
  });

  it("deny answers the call with a tool error saying the user denied it, runs nothing, and the run completes", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "understood" }) });
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

  it("allow_chat covers later runs of the chat until the grant is revoked", async () => {
    const { chatId, root } = await injectedChat(stack);
    const first = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch one" } }, { text: "first done" }) });
    const parked = await waitForParked(stack, first);
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_chat")).status).toBe(202);
    expect(await waitForFinished(stack, first)).toMatchObject({ status: "completed" });
    expect(await fileExists(root, "one")).toBe(true);

    const second = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch two" } }, { text: "second done" }) });
    const secondRun = await waitForParked(stack, second);
    expect(secondRun).toMatchObject({ status: "completed", output: "second done" });
    expect(await fileExists(root, "two")).toBe(true);
    expect((await stack.events(second)).some((event) => event.type === "approval.required")).toBe(false);

    const grants = (await stack.request("GET", `/api/chats/${chatId}/grants`)).body.grants;
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ scope: "allow_chat", tool: "run_command", effects: ["process"], approval_id: parked.pending_approvals[0].id, run_id: null });

    const revoked = await stack.request("DELETE", `/api/chats/${chatId}/grants/${grants[0].id}`);
    expect(revoked.status).toBe(200);
    expect((await stack.request("GET", `/api/chats/${chatId}/grants`)).body.grants).toEqual([]);
    expect((await stack.request("DELETE", `/api/chats/${chatId}/grants/${grants[0].id}`)).status).toBe(404);

    const third = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch three" } }, { text: "third done" }) });
    const thirdRun = await waitForParked(stack, third);
    expect(thirdRun.status).toBe("awaiting_approval");
    expect(await fileExists(root, "three")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${third}/cancel`)).status).toBe(202);
  });

  it("a task grant does not carry over to the next run of the chat", async () => {
    const { chatId, root } = await injectedChat(stack);
    const first = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch a1" } }, { text: "ok" }) });
    const parked = await waitForParked(stack, first);
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task")).status).toBe(202);
    expect(await waitForFinished(stack, first)).toMatchObject({ status: "completed" });
    const second = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch a2" } }, { text: "ok" }) });
    expect((await waitForParked(stack, second)).status).toBe("awaiting_approval");
    expect(await fileExists(root, "a2")).toBe(false);
    expect((await stack.request("POST", `/api/runs/${second}/cancel`)).status).toBe(202);
  });

  it("two calls needing approval in one round: the run resumes only after the last is decided", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ calls: [{ tool: "run_command", args: { command: "touch left" } }, { tool: "run_command", args: { command: "touch right" } }] }, { text: "pair done" }),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.pending_approvals).toHaveLength(2);
    const [left, right] = parked.pending_approvals;
    expect(left.arguments).toEqual({ command: "touch left" });
    expect(right.arguments).toEqual({ command: "touch right" });

    const denied = await decide(stack, left.id, "deny");
    expect(denied.body).toEqual({ run_id: runId, status: "awaiting_approval" });
    const stillParked = await stack.getRun(runId);
    expect(stillParked.status).toBe("awaiting_approval");
    expect(stillParked.pending_approvals.map((approval: any) => approval.id)).toEqual([right.id]);
    expect(await liveJobCount(stack)).toBe(0);

    const allowed = await decide(stack, right.id, "allow_task");
    expect(allowed.body).toEqual({ run_id: runId, status: "queued" });
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "pair done" });
    expect(await fileExists(root, "left")).toBe(false);
    expect(await fileExists(root, "right")).toBe(true);
    const results = (await stack.events(runId)).filter((event) => event.type === "tool.completed" && event.data.tool === "run_command");
    expect(results.map((event) => [event.data.tool_call_id, event.data.ok])).toEqual([
      [left.tool_call_id, false],
      [right.tool_call_id, true],
    ]);
  });

  it("allow_task on one of two calls of the same tool and effects decides both with one 202", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ calls: [{ tool: "run_command", args: { command: "touch p1" } }, { tool: "run_command", args: { command: "touch p2" } }] }, { text: "covered" }),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.pending_approvals).toHaveLength(2);
    const [first, second] = parked.pending_approvals;
    const allowed = await decide(stack, first.id, "allow_task");
    expect(allowed.body).toEqual({ run_id: runId, status: "queued" });
    const again = await decide(stack, second.id, "allow_task");
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("approval_already_decided");
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "covered" });
    expect(await fileExists(root, "p1")).toBe(true);
    expect(await fileExists(root, "p2")).toBe(true);
    const decided = (await stack.events(runId)).filter((event) => event.type === "approval.decided");
    expect(decided.map((event) => event.data.approval_id).sort()).toEqual([first.id, second.id].sort());
    expect(decided.find((event) => event.data.approval_id === second.id)?.data).toMatchObject({ decision: "allow_task", covered_by: first.id });
  });

  it("an allow with edited arguments runs the edited call, not the original", async () => {
    const { chatId, root } = await injectedChat(stack);
    const runId = await stack.run(chatId, { allow_bash: true, input: readThen({ tool: "run_command", args: { command: "touch pwned" } }, { text: "edited done" }) });
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
