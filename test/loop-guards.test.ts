import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { parseLoopState } from "../packages/core/src/runs/loop-state.ts";
import { defaultSettings } from "../packages/core/src/settings/agent-settings.ts";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";

describe("loop guards and malformed calls", () => {
  let stack: TestStack;
  let workspaceId: string;
  beforeAll(async () => {
    stack = await startTestStack();
    workspaceId = await stack.createWorkspace();
  });
  afterEach(async () => {
    const defaults = defaultSettings();
    await stack.request("PATCH", "/api/settings", { body: defaults });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const runToEnd = async (steps: Parameters<typeof scenarioInput>[0], extra: Record<string, unknown> = {}) => {
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, { input: scenarioInput(steps), ...extra });
    const run = await stack.waitForRun(runId);
    const events = await stack.events(runId);
    expectContiguous(events);
    return { run, events, chatId, runId };
  };

  it("malformed JSON arguments and an unknown tool become tool errors, and the run goes on", async () => {
    const { run, events } = await runToEnd([
      { tool: "read_file", rawArguments: '{"path": "a.txt"' },
      { tool: "no_such_tool", args: {} },
      { tool: "read_file", args: { wrong: 1 } },
      { text: "recovered" },
    ]);
    expect(run).toMatchObject({ status: "completed", output: "recovered", tool_calls: 3 });
    const results = events.filter((event) => event.type === "tool.completed");
    expect(results.map((event) => event.data.ok)).toEqual([false, false, false]);
    expect(results[0]!.data.error).toMatch(/JSON/i);
    expect(results[1]!.data.error).toMatch(/no tool named "no_such_tool"/);
    expect(results[2]!.data.error).toMatch(/path/);
    // Refused calls never started.
    expect(events.filter((event) => event.type === "tool.started")).toHaveLength(0);
  });

  it("a large call leaves the run's loop state small: the repeated-call counts are kept by a hash of the arguments", async () => {
    const content = "0123456789abcdef".repeat(12_500);
    const { run, runId } = await runToEnd([{ tool: "write_file", args: { path: "large.txt", content } }, { text: "written" }]);
    expect(run.status).toBe("completed");
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    expect(Object.values(parseLoopState(row.loopState).callCounts)).toEqual([1]);
    expect(JSON.stringify(row.loopState).length).toBeLessThan(1_000);
  });

  it("identical calls repeated up to the limit trip repeated_call and the next round gets no tools", async () => {
    const before = stack.provider.requestCount;
    const { run, events } = await runToEnd([
      { tool: "list_files", args: {} },
      { tool: "list_files", args: {} },
      { tool: "list_files", args: {} },
      { text: "giving up on listing" },
    ]);
    expect(run.status).toBe("completed");
    const guard = events.find((event) => event.type === "guard.triggered");
    expect(guard?.data).toMatchObject({ guard: "repeated_call", tool: "list_files", count: 3 });
    const lastRequest = stack.provider.requests.at(-1)!;
    expect(stack.provider.requestCount - before).toBe(4);
    expect(lastRequest.tools).toHaveLength(0);
    expect(events.filter((event) => event.type === "tool.started")).toHaveLength(2);
  });

  it("a call emitted in the round that had its tools withdrawn is refused and nothing runs", async () => {
    const { run, events } = await runToEnd([
      { tool: "list_files", args: {} },
      { tool: "list_files", args: {} },
      { tool: "list_files", args: {} },
      { tool: "write_file", args: { path: "final-round.txt", content: "should not exist" } },
      { text: "answered after the refusal" },
    ]);
    expect(run).toMatchObject({ status: "completed", output: "answered after the refusal" });
    const refused = events.find((event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(refused?.data).toMatchObject({ ok: false, error: expect.stringContaining("no tools were offered") });
    expect(events.some((event) => event.type === "tool.started" && event.data.tool === "write_file")).toBe(false);
    const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/final-round.txt`);
    expect(file.status).toBe(404);
    // The round after the refused call has every tool back; the model saw the error.
    const last = stack.provider.requests.at(-1)!;
    expect(last.tools.length).toBeGreaterThan(0);
    expect(last.messages.some((message) => message.role === "tool" && String(message.content).includes("no tools were offered"))).toBe(true);
  });

  it("a model that promises an action without calling a tool is nudged once", async () => {
    const { run, events } = await runToEnd([{ text: "I will now read the file notes.txt." }, { tool: "list_files", args: {} }, { text: "here is the answer" }]);
    expect(run).toMatchObject({ status: "completed", output: "here is the answer" });
    expect(events.filter((event) => event.type === "guard.triggered").map((event) => event.data.guard)).toEqual(["promised_action"]);
    const nudged = stack.provider.requests.find(
      (request) => request.messages.at(-1)?.role === "user" && /did not call a tool/.test(String(request.messages.at(-1)?.content)),
    );
    expect(nudged).toBeDefined();
  });

  it("a second empty promise after the nudge finishes the run", async () => {
    const { run, events } = await runToEnd([{ text: "Let me check the files." }, { text: "I will now read the file." }]);
    expect(run).toMatchObject({ status: "completed", output: "I will now read the file." });
    expect(events.filter((event) => event.type === "guard.triggered")).toHaveLength(1);
  });

  it("the call budget refuses calls past agent_max_tool_calls and asks for an answer", async () => {
    await stack.request("PATCH", "/api/settings", { body: { agent_max_tool_calls: 1 } });
    const { run, events } = await runToEnd([{ tool: "list_files", args: {} }, { tool: "list_files", args: { path: "." } }, { text: "budget reached" }]);
    expect(run).toMatchObject({ status: "completed", output: "budget reached" });
    expect(events.find((event) => event.type === "guard.triggered")?.data).toMatchObject({ guard: "call_budget", limit: 1 });
    expect(events.filter((event) => event.type === "tool.started")).toHaveLength(1);
  });

  it("the round budget ends a run that keeps calling tools", async () => {
    await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 2 } });
    const { run, events } = await runToEnd([
      { tool: "list_files", args: {} },
      { tool: "list_files", args: { path: "." } },
      { tool: "read_file", args: { path: "x" } },
    ]);
    expect(run.status).toBe("failed");
    expect(run.rounds).toBe(2);
    expect(run.error.code).toBe("round_budget");
    expect(events.at(-2)).toMatchObject({ type: "guard.triggered", data: { guard: "round_budget" } });
    expect(events.at(-1)!.type).toBe("run.failed");
  });

  it("a provider that goes silent ends the round with stream_timeout", async () => {
    await stack.request("PATCH", "/api/settings", { body: { agent_stream_timeout_seconds: 1 } });
    const started = Date.now();
    const { run, events } = await runToEnd([{ text: "partial answer that never ends", stallAfterEvents: 2, stallMs: 20_000 }]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("stream_timeout");
    expect(events.find((event) => event.type === "guard.triggered")?.data).toMatchObject({ guard: "stream_timeout" });
  });

  it("over the input token budget, the oldest tool results are truncated with a marker", async () => {
    // The budget is sized for the file tools' schemas alone: every other family is switched off, and
    // the run's user is not an admin (no admin tools).
    const user = await stack.createUser(`budget-${Date.now()}`);
    const userWorkspace = await stack.createWorkspace(user.token);
    await stack.putFile(userWorkspace, "big.txt", Array.from({ length: 400 }, (_, line) => `line ${line} of a long file with words`).join("\n"), user.token);
    const settings: Record<string, unknown> = (await stack.request("GET", "/api/settings")).body;
    const otherFamiliesOff = Object.fromEntries(
      Object.keys(settings)
        .filter((name) => /^tools_\w+_enabled$/.test(name) && name !== "tools_files_enabled")
        .map((name) => [name, false]),
    );
    await stack.request("PATCH", "/api/settings", { body: { agent_input_token_budget: 1500, ...otherFamiliesOff } });
    const chatId = await stack.createChat({ workspaceId: userWorkspace, token: user.token });
    const steps = [{ tool: "read_file", args: { path: "big.txt" } }, { tool: "list_files", args: {} }, { text: "done reading" }];
    const runId = await stack.run(chatId, { input: scenarioInput(steps) }, user.token);
    const run = await stack.waitForRun(runId, undefined, 20_000, user.token);
    const events = await stack.events(runId, 0, user.token);
    expectContiguous(events);
    expect(run.status).toBe("completed");
    expect(events.some((event) => event.type === "guard.triggered" && event.data.guard === "token_budget")).toBe(true);
    const last = stack.provider.requests.at(-1)!;
    // The first tool message answers read_file (its truncated result may no longer name the file).
    const readResult = last.messages.find((message) => message.role === "tool");
    expect(readResult?.content).toMatch(/truncated/i);
  });
});
