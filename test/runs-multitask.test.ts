import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateId } from "@agentq/core";
import { createRun } from "../packages/core/src/runs/create-run.ts";
import { scenarioInput } from "@agentq/core/testing";
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

  it("enqueue: runs queued behind a parked run start in order once it is cancelled, skipping a cancelled one", async () => {
    const { chatId, runId: first } = await parkedRun("first run");
    const second = (await stack.startRun(chatId, { input: scenarioInput([{ text: "second answer" }], "second run"), multitask: "enqueue" })).body.id;
    const third = (await stack.startRun(chatId, { input: scenarioInput([{ text: "third answer" }], "third run"), multitask: "enqueue" })).body.id;
    expect(new Set([first, second, third]).size).toBe(3);

    // Cancelling the queued middle run must not start the third while the first is still parked.
    expect((await stack.request("POST", `/api/runs/${second}/cancel`)).body.status).toBe("cancelled");
    const probe = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "probe" }]) });
    await stack.waitForRun(probe);
    expect((await stack.getRun(third)).status).toBe("queued");
    expect((await stack.getRun(first)).status).toBe("awaiting_approval");

    expect((await stack.request("POST", `/api/runs/${first}/cancel`)).body.status).toBe("cancelled");
    expect(await stack.waitForRun(third, undefined, 30_000)).toMatchObject({ status: "completed", output: "third answer" });
    expect(await stack.getRun(second)).toMatchObject({ status: "cancelled", rounds: 0 });

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    const users = chat.messages.filter((message: any) => message.role === "user").map((message: any) => message.content);
    expect(users).toEqual([expect.stringContaining("first run"), expect.stringContaining("third run")]);
    expect(chat.messages.at(-1)).toMatchObject({ role: "assistant", content: "third answer" });
  });

  it("interrupt: a parked run is cancelled at once (its approval can no longer be decided) and the new run completes", async () => {
    const { chatId, runId: first, approvalId } = await parkedRun("first run");
    const response = await stack.startRun(chatId, { input: scenarioInput([{ text: "took over" }], "second run"), multitask: "interrupt" });
    expect(response.status).toBe(202);
    expect((await stack.getRun(first)).status).toBe("cancelled");
    expect(await stack.waitForRun(response.body.id)).toMatchObject({ status: "completed", output: "took over" });
    const firstEvents = await stack.events(first);
    expectContiguous(firstEvents);
    expect(firstEvents.at(-1)!.type).toBe("run.cancelled");
    const decision = await stack.request("POST", "/api/approvals", { body: { tool_approval_id: approvalId, tool_approval_decision: "allow_task" } });
    expect(decision.status).toBe(409);
    expect(decision.body.error.code).toBe("run_finished");

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    const callIds = chat.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id));
    const answered = chat.messages.filter((message: any) => message.role === "tool").map((message: any) => message.tool_call_id);
    expect(callIds).toHaveLength(2);
    expect([...answered].sort()).toEqual([...callIds].sort());
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

  it("concurrent requests on one chat: with reject exactly one run is created; with enqueue they run one at a time", async () => {
    const chatId = await stack.createChat();
    // The model's answer is held until all four requests are decided, so whichever run is created
    // stays active meanwhile: without the latch it could finish first and make room for a second run.
    const rejects = await Promise.all(
      [1, 2, 3, 4].map((index) => stack.startRun(chatId, { input: scenarioInput([{ text: `r${index}`, holdUntil: "multitask-reject" }]) })),
    );
    expect(rejects.map((response) => response.status).sort()).toEqual([202, 409, 409, 409]);
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(1);
    expect(await stack.prisma.run.count({ where: { chatId, status: { in: ["queued", "running"] } } })).toBe(1);
    stack.provider.release("multitask-reject");
    await stack.waitForRun(rejects.find((response) => response.status === 202)!.body.id);

    const enqueueChat = await stack.createChat();
    const responses = await Promise.all(
      [1, 2, 3, 4].map((index) =>
        stack.startRun(enqueueChat, { input: scenarioInput([{ text: `answer ${index}`, chunkDelayMs: 20 }], `run ${index}`), multitask: "enqueue" }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 202]);
    const runIds = responses.map((response) => response.body.id as string);
    for (const runId of runIds) expect((await stack.waitForRun(runId, undefined, 30_000)).status).toBe("completed");
    // No two runs of the chat overlapped: sorted by start, each starts after the previous one ended.
    const spans = await Promise.all(
      runIds.map(async (runId) => {
        const events = await stack.events(runId);
        return { start: Date.parse(events.find((event) => event.type === "run.started")!.at), end: Date.parse(events.at(-1)!.at) };
      }),
    );
    spans.sort((left, right) => left.start - right.start);
    for (let index = 1; index < spans.length; index += 1) expect(spans[index]!.start).toBeGreaterThanOrEqual(spans[index - 1]!.end);
    // Each run's user message is followed by its own answer: the transcript is not interleaved.
    const chat = (await stack.request("GET", `/api/chats/${enqueueChat}`)).body;
    expect(chat.messages).toHaveLength(8);
    for (let index = 0; index < 8; index += 2) {
      const number = /run (\d)/.exec(chat.messages[index].content)![1];
      expect(chat.messages[index + 1]).toMatchObject({ role: "assistant", content: `answer ${number}` });
    }
  });

  it("runs created at once with enqueue line up in commit order: the one runnable when it committed is first in the chat's order", async () => {
    // Every request reads the same clock, so the order cannot come from the clock: it must follow the
    // commits, or a worker given the runnable run finds another queued ahead of it and the chat stalls.
    const at = new Date();
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const chatId = await stack.createChat();
      const { userId } = await stack.prisma.chat.findUniqueOrThrow({ where: { id: chatId } });
      const created = await Promise.all(
        [1, 2, 3, 4].map(() =>
          createRun(
            { prisma: stack.prisma, clock: () => at, generateId },
            {
              userId,
              chatId,
              input: "queued only",
              model: "fake-model",
              mode: "agent",
              allowBash: false,
              allowWebSearch: false,
              useWeb: false,
              tools: [],
              multitask: "enqueue",
            },
          ),
        ),
      );
      const runnable = created.filter((result) => result.runnable);
      expect(runnable).toHaveLength(1);
      const ordered = await stack.prisma.run.findMany({
        where: { chatId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, createdAt: true },
      });
      expect(ordered).toHaveLength(4);
      expect(ordered[0]!.id).toBe(runnable[0]!.runId);
      // Each later run is stamped after the one before it, so no two tie.
      for (let index = 1; index < ordered.length; index += 1)
        expect(ordered[index]!.createdAt.getTime()).toBeGreaterThan(ordered[index - 1]!.createdAt.getTime());
    }
  });

  it("interrupt with no active run simply starts the new run", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "alone" }]), multitask: "interrupt" });
    expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "alone" });
  });
});
