import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";

describe("a run end to end (HTTP → queue → worker → provider SDK → Postgres)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("a run that writes then reads a file completes with contiguous events and paired messages", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "write_file", args: { path: "b.txt", content: "hello" } },
        { tool: "read_file", args: { path: "b.txt" } },
        { text: "b.txt says hello" },
      ]),
    });
    const run = await stack.waitForRun(runId);
    expect(run).toMatchObject({ status: "completed", output: "b.txt says hello", rounds: 3, tool_calls: 2, error: null });

    const events = await stack.events(runId);
    expectContiguous(events);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("run.queued");
    expect(types.at(-1)).toBe("run.completed");
    expect(types.filter((type) => type === "round.started")).toHaveLength(3);
    const completed = events.filter((event) => event.type === "tool.completed");
    expect(completed.map((event) => [event.data.tool, event.data.ok])).toEqual([
      ["write_file", true],
      ["read_file", true],
    ]);
    expect(completed[1]!.data.result).toContain("hello");

    const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
    const callIds = chat.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id));
    const answered = chat.messages.filter((message: any) => message.role === "tool").map((message: any) => message.tool_call_id);
    expect(callIds).toHaveLength(2);
    expect(answered.sort()).toEqual([...callIds].sort());
    expect(chat.messages[0]).toMatchObject({ role: "user" });
    expect(chat.messages.at(-1)).toMatchObject({ role: "assistant", content: "b.txt says hello" });

    const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/b.txt`);
    expect(file.body.content).toBe("hello");
  });

  it("a command whose output holds a NUL byte is recorded (as U+FFFD) and the run completes", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      allow_bash: true,
      input: scenarioInput([{ tool: "run_command", args: { command: "printf 'before\\0after'" } }, { text: "ran it" }]),
    });
    const run = await stack.waitForRun(runId);
    expect(run).toMatchObject({ status: "completed", output: "ran it" });
    const completed = (await stack.events(runId)).find((event) => event.type === "tool.completed");
    expect(completed?.data.ok).toBe(true);
    expect(completed?.data.result).toContain("before\ufffdafter");
  });

  it("the events endpoint returns only events after the given seq", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "hi" }]) });
    await stack.waitForRun(runId);
    const all = await stack.events(runId);
    const tail = await stack.events(runId, 2);
    expect(tail).toEqual(all.slice(2));
    expect((await stack.request("GET", `/api/runs/${runId}/events?after=-1`)).status).toBe(400);
  });
});
