import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";

describe("settings (GET/PATCH /api/settings) and the round budget they set", () => {
  let stack: TestStack;
  let user: { id: string; token: string };
  beforeAll(async () => {
    stack = await startTestStack();
    user = await stack.createUser("plain-user");
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("GET answers the documented defaults to an admin", async () => {
    const result = await stack.request("GET", "/api/settings");
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      agent_max_rounds: 20,
      agent_max_tool_calls: 0,
      agent_stream_timeout_seconds: 300,
      agent_input_token_budget: 6000,
      agent_input_token_hard_max: 200000,
      web_fetch_allow: [],
    });
  });

  it("a user who is not an admin gets 403 on GET and PATCH, and the PATCH changes nothing", async () => {
    const before = (await stack.request("GET", "/api/settings")).body;
    const read = await stack.request("GET", "/api/settings", { token: user.token });
    expect(read.status).toBe(403);
    expect(read.body.error.code).toBe("forbidden");
    const write = await stack.request("PATCH", "/api/settings", { token: user.token, body: { agent_max_rounds: 3 } });
    expect(write.status).toBe(403);
    expect((await stack.request("GET", "/api/settings")).body).toEqual(before);
    expect((await stack.request("GET", "/api/settings", { token: "aq_bad-token" })).status).toBe(401);
  });

  it("PATCH clamps values to their range and stores them", async () => {
    const low = await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 0 } });
    expect(low.status).toBe(200);
    expect(low.body.agent_max_rounds).toBe(1);
    const high = await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 1000, agent_max_tool_calls: 5 } });
    expect(high.body).toMatchObject({ agent_max_rounds: 200, agent_max_tool_calls: 5 });
    // Stored, not only echoed; a partial PATCH leaves the other settings alone.
    expect((await stack.request("GET", "/api/settings")).body).toMatchObject({ agent_max_rounds: 200, agent_max_tool_calls: 5 });
    const partial = await stack.request("PATCH", "/api/settings", { body: { agent_max_tool_calls: 0 } });
    expect(partial.body).toMatchObject({ agent_max_rounds: 200, agent_max_tool_calls: 0 });
    await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 20 } });
  });

  it("PATCH refuses an unknown key or a wrong type with 400 naming the field, and stores nothing", async () => {
    const before = (await stack.request("GET", "/api/settings")).body;
    const unknown = await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 5, agent_max_rounds_typo: 3 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("invalid_request");
    expect(unknown.body.error.details.field).toBe("agent_max_rounds_typo");
    const wrongType = await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: "ten" } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.field).toBe("agent_max_rounds");
    expect((await stack.request("GET", "/api/settings")).body).toEqual(before);
  });

  it("a run under agent_max_rounds=2 that keeps calling tools ends failed with guard.triggered round_budget", async () => {
    expect((await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 2 } })).body.agent_max_rounds).toBe(2);
    try {
      const workspaceId = await stack.createWorkspace();
      const chatId = await stack.createChat({ workspaceId });
      const runId = await stack.run(chatId, {
        input: scenarioInput([
          { tool: "write_file", args: { path: "one.txt", content: "1" } },
          { tool: "write_file", args: { path: "two.txt", content: "2" } },
          { tool: "write_file", args: { path: "three.txt", content: "3" } },
          { text: "never reached" },
        ]),
      });
      const run = await stack.waitForRun(runId);
      expect(run.status).toBe("failed");
      expect(run.rounds).toBe(2);
      expect(run.error).toMatchObject({ code: "round_budget" });
      expect(run.output).toBeNull();

      const events = await stack.events(runId);
      expectContiguous(events);
      expect(events.filter((event) => event.type === "round.started")).toHaveLength(2);
      expect(events.filter((event) => event.type === "guard.triggered").map((event) => event.data.guard)).toEqual(["round_budget"]);
      expect(events.at(-1)!.type).toBe("run.failed");
      // The provider was asked exactly twice for this run.
      const requests = stack.provider.requests.filter((request) => JSON.stringify(request.messages).includes("three.txt"));
      expect(requests).toHaveLength(2);

      // The calls the model did make were all answered.
      const chat = (await stack.request("GET", `/api/chats/${chatId}`)).body;
      const callIds = chat.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id));
      const answered = chat.messages.filter((message: any) => message.role === "tool").map((message: any) => message.tool_call_id);
      expect([...answered].sort()).toEqual([...callIds].sort());
      expect((await stack.request("GET", `/api/workspaces/${workspaceId}/files/three.txt`)).status).toBe(404);
    } finally {
      await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 20 } });
    }
  });

  it("a run that answers within the round budget completes", async () => {
    await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 2 } });
    try {
      const workspaceId = await stack.createWorkspace();
      const chatId = await stack.createChat({ workspaceId });
      const runId = await stack.run(chatId, { input: scenarioInput([{ tool: "write_file", args: { path: "a.txt", content: "a" } }, { text: "done in two" }]) });
      expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", rounds: 2, output: "done in two" });
    } finally {
      await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 20 } });
    }
  });
});
