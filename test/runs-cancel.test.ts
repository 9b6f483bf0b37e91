import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type RunEvent, type TestStack } from "./support/test-stack.ts";

/** Every assistant tool call id of the chat is answered by exactly one tool message (API.md, Message). */
function expectEveryCallAnswered(messages: any[]): string[] {
  const callIds = messages.flatMap((message) => (message.tool_calls ?? []).map((call: any) => call.id as string));
  const answered = messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id as string);
  expect([...answered].sort()).toEqual([...callIds].sort());
  return callIds;
}

function expectEndsWithCancel(events: RunEvent[]): void {
  expectContiguous(events);
  expect(events[0]!.type).toBe("run.queued");
  expect(events.at(-1)!.type).toBe("run.cancelled");
  expect(events.filter((event) => ["run.completed", "run.failed", "run.cancelled"].includes(event.type))).toHaveLength(1);
}

describe("cancelling runs (POST /api/runs/:id/cancel)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("a run cancelled while the model streams ends cancelled long before the stream would end", async () => {
    const chatId = await stack.createChat();
    // 8-character chunks, 200 ms apart: the whole answer would take about 60 s.
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "long answer ".repeat(200), chunkDelayMs: 200 }]) });
    await stack.waitForEvent(runId, (event) => event.type === "round.started");
    await stack.waitForRun(runId, (run) => run.status === "running");
    const cancelledAt = Date.now();
    const response = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(response.status).toBe(202);
    expect(response.body.id).toBe(runId);
    expect(["running", "cancelled"]).toContain(response.body.status);

    const run = await stack.waitForRun(runId, undefined, 20_000);
    expect(run.status).toBe("cancelled");
    expect(run.output).toBeNull();
    // The stream would need ~60 s; the cancel reached the worker through its control channel.
    expect(Date.now() - cancelledAt).toBeLessThan(20_000);
    expectEndsWithCancel(await stack.events(runId));
  });

  it("cancelling a finished run answers 409 run_finished and changes nothing", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "all done" }]) });
    await stack.waitForRun(runId);
    const before = await stack.events(runId);
    const response = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("run_finished");
    const run = await stack.getRun(runId);
    expect(run).toMatchObject({ status: "completed", output: "all done" });
    expect(await stack.events(runId)).toEqual(before);
  });

  it("a tool call running when the run is cancelled is answered, and the run ends cancelled", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "run_command", args: { command: "sleep 30" } }, { text: "never reached" }]),
    });
    const started = await stack.waitForEvent(runId, (event) => event.type === "tool.started");
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
    const run = await stack.waitForRun(runId);
    expect(run.status).toBe("cancelled");

    const events = await stack.events(runId);
    expectEndsWithCancel(events);
    const completed = events.filter((event) => event.type === "tool.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ tool_call_id: started.data.tool_call_id, tool: "run_command", ok: false });
    expect(events.some((event) => event.type === "round.started" && events.indexOf(event) > events.indexOf(completed[0]!))).toBe(false);

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    expect(expectEveryCallAnswered(chat.messages)).toEqual([started.data.tool_call_id]);
    const answer = chat.messages.find((message: any) => message.role === "tool");
    expect(answer.content).toMatch(/cancel/i);
  });

  it("cancelling during a round of several calls answers the running one and the ones not yet begun", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([
        {
          calls: [
            { tool: "run_command", args: { command: "sleep 30" } },
            { tool: "write_file", args: { path: "later.txt", content: "later" } },
          ],
        },
        { text: "never reached" },
      ]),
    });
    await stack.waitForEvent(runId, (event) => event.type === "tool.started" && event.data.tool === "run_command");
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).status).toBe(202);
    expect((await stack.waitForRun(runId)).status).toBe("cancelled");

    const events = await stack.events(runId);
    expectEndsWithCancel(events);
    const completed = events.filter((event) => event.type === "tool.completed");
    expect(completed.map((event) => [event.data.tool, event.data.ok])).toEqual([
      ["run_command", false],
      ["write_file", false],
    ]);
    // The second call never began: no tool.started for it, and no file.
    expect(events.filter((event) => event.type === "tool.started").map((event) => event.data.tool)).toEqual(["run_command"]);
    expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/later.txt`)).status).toBe(404);
    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    expect(expectEveryCallAnswered(chat.messages)).toHaveLength(2);
  });

  it("a run awaiting approval is cancelled at once and its pending call gets a tool message", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.txt", "some notes");
    const chatId = await stack.createChat({ workspaceId });
    // The file read taints the run, so the write that follows pauses for approval.
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "out.txt", content: "x" } },
        { text: "never reached" },
      ]),
    });
    const paused = await stack.waitForRun(runId, (run) => run.status === "awaiting_approval");
    expect(paused.pending_approvals).toHaveLength(1);
    const approvalId = paused.pending_approvals[0].id;

    const response = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(response.status).toBe(202);
    // A parked run has no worker: the API finishes it in the same request.
    expect(response.body.status).toBe("cancelled");
    expect(response.body.pending_approvals).toEqual([]);

    const events = await stack.events(runId);
    expectEndsWithCancel(events);
    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    expect(expectEveryCallAnswered(chat.messages)).toHaveLength(2);
    const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/out.txt`);
    expect(file.status).toBe(404);

    const decision = await stack.request("POST", "/api/approvals", { body: { tool_approval_id: approvalId, tool_approval_decision: "allow_task" } });
    expect(decision.status).toBe(409);
    expect(decision.body.error.code).toBe("run_finished");
  });
});

describe("cancelling a queued run (no worker)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is cancelled at once, and a worker that starts later does not run it", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "should not run" }]) });
    expect((await stack.getRun(runId)).status).toBe("queued");

    const response = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ id: runId, status: "cancelled", rounds: 0, output: null });
    const events = await stack.events(runId);
    expect(events.map((event) => event.type)).toEqual(["run.queued", "run.cancelled"]);
    expectContiguous(events);

    // A run queued after it in another chat proves the worker has drained the queue.
    const otherChat = await stack.createChat();
    await stack.startWorker();
    const probe = await stack.run(otherChat, { input: scenarioInput([{ text: "probe" }]) });
    await stack.waitForRun(probe);
    expect(await stack.getRun(runId)).toMatchObject({ status: "cancelled", rounds: 0 });
    expect(await stack.events(runId)).toEqual(events);
    expect(stack.provider.requests.some((request) => JSON.stringify(request.messages).includes("should not run"))).toBe(false);

    const again = await stack.request("POST", `/api/runs/${runId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("run_finished");
  });
});
