import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { decide, eventually, fileExists, injectedChat, liveJobCount, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";

describe("grants and rounds that pause on several calls", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("allow_chat covers later runs of the chat until the grant is revoked", async () => {
    const { chatId, root } = await injectedChat(stack);
    const first = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch one" } }, { text: "first done" }),
    });
    const parked = await waitForParked(stack, first);
    expect((await decide(stack, parked.pending_approvals[0].id, "allow_chat")).status).toBe(202);
    expect(await waitForFinished(stack, first)).toMatchObject({ status: "completed" });
    expect(await fileExists(root, "one")).toBe(true);

    const second = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch two" } }, { text: "second done" }),
    });
    const secondRun = await waitForParked(stack, second);
    expect(secondRun).toMatchObject({ status: "completed", output: "second done" });
    expect(await fileExists(root, "two")).toBe(true);
    expect((await stack.events(second)).some((event) => event.type === "approval.required")).toBe(false);

    const grants = (await stack.request("GET", `/api/chats/${chatId}/grants`)).body.grants;
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      scope: "allow_chat",
      tool: "run_command",
      effects: ["process"],
      approval_id: parked.pending_approvals[0].id,
      run_id: null,
    });

    const revoked = await stack.request("DELETE", `/api/chats/${chatId}/grants/${grants[0].id}`);
    expect(revoked.status).toBe(200);
    expect((await stack.request("GET", `/api/chats/${chatId}/grants`)).body.grants).toEqual([]);
    expect((await stack.request("DELETE", `/api/chats/${chatId}/grants/${grants[0].id}`)).status).toBe(404);

    const third = await stack.run(chatId, {
      allow_bash: true,
      input: readThen({ tool: "run_command", args: { command: "touch three" } }, { text: "third done" }),
    });
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
      input: readThen(
        {
          calls: [
            { tool: "run_command", args: { command: "touch left" } },
            { tool: "run_command", args: { command: "touch right" } },
          ],
        },
        { text: "pair done" },
      ),
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
    await eventually("no live job while an approval is pending", async () => (await liveJobCount(stack)) === 0);
    expect((await stack.getRun(runId)).status).toBe("awaiting_approval");

    const allowed = await decide(stack, right.id, "allow_task");
    expect(allowed.body).toEqual({ run_id: runId, status: "running" });
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
      input: readThen(
        {
          calls: [
            { tool: "run_command", args: { command: "touch p1" } },
            { tool: "run_command", args: { command: "touch p2" } },
          ],
        },
        { text: "covered" },
      ),
    });
    const parked = await waitForParked(stack, runId);
    expect(parked.pending_approvals).toHaveLength(2);
    const [first, second] = parked.pending_approvals;
    const allowed = await decide(stack, first.id, "allow_task");
    expect(allowed.body).toEqual({ run_id: runId, status: "running" });
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

  it("the last two approvals of a round decided at the same instant still resume the run", { timeout: 90_000 }, async () => {
    // Each decision must see the other's outcome: otherwise both count one still pending and nobody resumes the run.
    const parkedRuns = await Promise.all(
      Array.from({ length: 4 }, async (_, index) => {
        const { chatId, root } = await injectedChat(stack);
        const runId = await stack.run(chatId, {
          allow_bash: true,
          input: readThen(
            {
              calls: [
                { tool: "run_command", args: { command: `touch x${index}` } },
                { tool: "run_command", args: { command: `touch y${index}` } },
              ],
            },
            { text: `race ${index} done` },
          ),
        });
        const parked = await waitForParked(stack, runId);
        expect(parked.pending_approvals).toHaveLength(2);
        return { runId, root, approvals: parked.pending_approvals.map((approval: any) => approval.id as string) };
      }),
    );
    const decisions = await Promise.all(parkedRuns.flatMap(({ approvals }) => approvals.map((approvalId: string) => decide(stack, approvalId, "deny"))));
    expect(decisions.map((decision) => decision.status)).toEqual(decisions.map(() => 202));
    for (const [index, { runId, root }] of parkedRuns.entries()) {
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: `race ${index} done`, pending_approvals: [] });
      expect(await fileExists(root, `x${index}`)).toBe(false);
      expect(await fileExists(root, `y${index}`)).toBe(false);
    }
  });
});
