import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing/scenario-responder";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";

/** A read taints the run, so the write after it parks the run on an approval: active for as long as the test wants. */
const PARKING_STEPS = [
  { tool: "read_file", args: { path: "notes.txt" } },
  { tool: "write_file", args: { path: "out.txt", content: "written" } },
  { text: "first answer" },
];

describe("multitask: a new run in a chat that already has an active one", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function parkedRun(note: string): Promise<{ chatId: string; runId: string; approvalId: string }> {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.txt", "some notes");
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, { input: scenarioInput(PARKING_STEPS, note) });
    const run = await stack.waitForRun(runId, (candidate) => candidate.status === "awaiting_approval");
    return { chatId, runId, approvalId: run.pending_approvals[0].id };
  }

  it("reject (the default) answers 409 run_in_progress naming the active run, and creates nothing", async () => {
    const { chatId, runId: first } = await parkedRun("first run");
    for (const multitask of [undefined, "reject"]) {
      const response = await stack.startRun(chatId, { input: "second", ...(multitask ? { multitask } : {}) });
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe("run_in_progress");
      expect(response.body.error.details).toMatchObject({ run_id: first });
    }
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(1);
    expect((await stack.request("POST", `/api/runs/${first}/cancel`)).status).toBe(202);
    // Once the first run is finished the chat accepts a new run again.
    const next = await stack.run(chatId, { input: scenarioInput([{ text: "next" }]) });
    expect((await stack.waitForRun(next)).status).toBe("completed");
  });

  it("enqueue: the second run waits for the first, both complete, and the transcript keeps their order", async () => {
    const { chatId, runId: first, approvalId } = await parkedRun("first run");
    const secondResponse = await stack.startRun(chatId, { input: scenarioInput([{ text: "second answer" }], "second run"), multitask: "enqueue" });
    expect(secondResponse.status).toBe(202);
    const second = secondResponse.body.id;
    expect(second).not.toBe(first);
    expect(secondResponse.body.status).toBe("queued");

    // While the first run is parked the second one stays queued: the probe run of another chat
    // completing proves the worker had every chance to pick it up.
    const probe = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "probe" }]) });
    await stack.waitForRun(probe);
    expect(await stack.getRun(second)).toMatchObject({ status: "queued", rounds: 0 });
    expect((await stack.events(second)).map((event) => event.type)).toEqual(["run.queued"]);

    const decision = await stack.request("POST", "/api/approvals", { body: { tool_approval_id: approvalId, tool_approval_decision: "allow_task" } });
    expect(decision.status).toBe(202);
    const secondRun = await stack.waitForRun(second, undefined, 30_000);
    const firstRun = await stack.getRun(first);
    expect(firstRun).toMatchObject({ status: "completed", output: "first answer" });
    expect(secondRun).toMatchObject({ status: "completed", output: "second answer" });

    const firstEvents = await stack.events(first);
    const secondEvents = await stack.events(second);
    expectContiguous(firstEvents);
    expectContiguous(secondEvents);
    const firstFinished = Date.parse(firstEvents.find((event) => event.type === "run.completed")!.at);
    const secondStarted = Date.parse(secondEvents.find((event) => event.type === "run.started")!.at);
    expect(secondStarted).toBeGreaterThanOrEqual(firstFinished);

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    const transcript = chat.messages.map((message: any) => [message.role, message.content]);
    expect(transcript).toEqual([
      ["user", expect.stringContaining("first run")],
      ["assistant", null],
      ["tool", expect.stringContaining("some notes")],
      ["assistant", null],
      ["tool", expect.any(String)],
      ["assistant", "first answer"],
      ["user", expect.stringContaining("second run")],
      ["assistant", "second answer"],
    ]);
  });

  it("interrupt: the active run is cancelled with its open call answered, and the new run completes", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const first = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "run_command", args: { command: "sleep 30" } }, { text: "never reached" }], "first run"),
    });
    const started = await stack.waitForEvent(first, (event) => event.type === "tool.started");
    const response = await stack.startRun(chatId, { input: scenarioInput([{ text: "interrupting answer" }], "second run"), multitask: "interrupt" });
    expect(response.status).toBe(202);
    const second = response.body.id;

    const secondRun = await stack.waitForRun(second, undefined, 30_000);
    expect(secondRun).toMatchObject({ status: "completed", output: "interrupting answer" });
    const firstRun = await stack.waitForRun(first);
    expect(firstRun.status).toBe("cancelled");

    const firstEvents = await stack.events(first);
    expectContiguous(firstEvents);
    expect(firstEvents.at(-1)!.type).toBe("run.cancelled");
    expect(firstEvents.find((event) => event.type === "tool.completed")?.data).toMatchObject({ tool_call_id: started.data.tool_call_id, ok: false });
    expect(firstEvents.some((event) => event.type === "round.started" && event.seq > started.seq)).toBe(false);

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    const callIds = chat.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id));
    const answered = chat.messages.filter((message: any) => message.role === "tool").map((message: any) => message.tool_call_id);
    expect(callIds).toEqual([started.data.tool_call_id]);
    expect(answered).toEqual(callIds);
    // The interrupted run's answered call comes before the new run's user message.
    const toolIndex = chat.messages.findIndex((message: any) => message.role === "tool");
    const secondUserIndex = chat.messages.findIndex((message: any) => message.role === "user" && message.content.startsWith("second run"));
    expect(toolIndex).toBeGreaterThan(-1);
    expect(secondUserIndex).toBeGreaterThan(toolIndex);
    expect(chat.messages.at(-1)).toMatchObject({ role: "assistant", content: "interrupting answer" });
  });

  it("interrupt with no active run simply starts the new run", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "alone" }]), multitask: "interrupt" });
    expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "alone" });
  });
});
