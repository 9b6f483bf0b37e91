import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { startTestStack, type HttpResult, type TestStack } from "./support/test-stack.ts";

function expectNotFound(result: HttpResult): void {
  expect(result.status).toBe(404);
  expect(result.body.error.code).toBe("not_found");
}

describe("runs and chats are visible only to their owner (invariant 7)", () => {
  let stack: TestStack;
  let owner: { id: string; token: string };
  let other: { id: string; token: string };
  beforeAll(async () => {
    stack = await startTestStack();
    owner = await stack.createUser("owner");
    other = await stack.createUser("other");
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("another user gets 404 on the run, its chat, its events (JSON and SSE), cancel and new runs, and changes nothing", async () => {
    const workspaceId = await stack.createWorkspace(owner.token);
    await stack.putFile(workspaceId, "notes.txt", "owner's notes", owner.token);
    const chatId = await stack.createChat({ workspaceId, token: owner.token });
    // The run parks on an approval, so it is still active while the other user pokes at it.
    const runId = await stack.run(
      chatId,
      {
        input: scenarioInput([
          { tool: "read_file", args: { path: "notes.txt" } },
          { tool: "write_file", args: { path: "o.txt", content: "o" } },
        ]),
      },
      owner.token,
    );
    await stack.waitForRun(runId, (run) => run.status === "awaiting_approval", 20_000, owner.token);
    const eventsBefore = await stack.events(runId, 0, owner.token);

    const token = other.token;
    expectNotFound(await stack.request("GET", `/api/runs/${runId}`, { token }));
    expectNotFound(await stack.request("GET", `/api/chats/${chatId}`, { token }));
    expectNotFound(await stack.request("GET", `/api/runs/${runId}/events`, { token }));
    expectNotFound(await stack.request("GET", `/api/runs/${runId}/events?after=0`, { token, headers: { accept: "text/event-stream" } }));
    expectNotFound(await stack.request("POST", `/api/runs/${runId}/cancel`, { token }));
    expectNotFound(await stack.startRun(chatId, { input: "intruding", multitask: "interrupt" }, token));
    expectNotFound(await stack.startRun(chatId, { input: "intruding", multitask: "enqueue" }, token));
    expectNotFound(await stack.request("GET", `/api/chats/${chatId}/approvals`, { token }));
    expectNotFound(await stack.request("GET", `/api/chats/${chatId}/grants`, { token }));

    // A missing id is answered the same way: the 404 reveals nothing about existence.
    const missing = await stack.request("GET", "/api/runs/run_does_not_exist", { token });
    const foreign = await stack.request("GET", `/api/runs/${runId}`, { token });
    expect(Object.keys(missing.body.error).sort()).toEqual(Object.keys(foreign.body.error).sort());
    expect(missing.body.error.code).toBe(foreign.body.error.code);

    // Nothing changed: the run is still parked, no run was added, no event was appended.
    expect(await stack.getRun(runId, owner.token)).toMatchObject({ status: "awaiting_approval" });
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(1);
    expect(await stack.events(runId, 0, owner.token)).toEqual(eventsBefore);
    // The owner still can do all of it.
    expect((await stack.request("GET", `/api/chats/${chatId}`, { token: owner.token })).status).toBe(200);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`, { token: owner.token })).body.status).toBe("cancelled");
  });

  it("a chat cannot be created on someone else's workspace (404, no chat)", async () => {
    const workspaceId = await stack.createWorkspace(owner.token);
    const chatsBefore = await stack.prisma.chat.count();
    const result = await stack.request("POST", "/api/chats", { token: other.token, body: { workspace_id: workspaceId } });
    expectNotFound(result);
    expectNotFound(await stack.request("POST", "/api/chats", { token: other.token, body: { workspace_id: "ws_does_not_exist" } }));
    expect(await stack.prisma.chat.count()).toBe(chatsBefore);
    expect((await stack.request("POST", "/api/chats", { token: owner.token, body: { workspace_id: workspaceId } })).status).toBe(201);
  });
});

describe("validation of POST /api/chats/:id/runs and POST /api/chats", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const badBodies: [string, Record<string, unknown>, string][] = [
    ["input missing", {}, "input"],
    ["input not a string", { input: 42 }, "input"],
    ["input empty", { input: "" }, "input"],
    ["unknown mode", { input: "hi", mode: "autopilot" }, "mode"],
    ["unknown multitask", { input: "hi", multitask: "queue" }, "multitask"],
    ["allow_bash not a boolean", { input: "hi", allow_bash: "yes" }, "allow_bash"],
    ["allow_web_search not a boolean", { input: "hi", allow_web_search: 1 }, "allow_web_search"],
    ["use_web not a boolean", { input: "hi", use_web: "true" }, "use_web"],
    ["model not a string", { input: "hi", model: 7 }, "model"],
    ["idempotency_key not a string", { input: "hi", idempotency_key: 12 }, "idempotency_key"],
    ["idempotency_key empty", { input: "hi", idempotency_key: "" }, "idempotency_key"],
  ];

  it.each(badBodies)("%s → 400 invalid_request naming the field, and no run", async (_name, body, field) => {
    const chatId = await stack.createChat();
    const result = await stack.request("POST", `/api/chats/${chatId}/runs`, { body });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe("invalid_request");
    expect(result.body.error.details.field).toBe(field);
    expect(result.body.error.message).toContain(field);
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(0);
  });

  it("a body that is not JSON, or not an object, is a 400 and creates no run", async () => {
    const chatId = await stack.createChat();
    const notJson = await fetch(`${stack.url}/api/chats/${chatId}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.api.adminToken}`, "content-type": "application/json" },
      body: '{"input": "hi"',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as any).error.code).toBe("invalid_request");
    const array = await stack.request("POST", `/api/chats/${chatId}/runs`, { body: ["hi"] });
    expect(array.status).toBe(400);
    expect(array.body.error.code).toBe("invalid_request");
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(0);
  });

  it("a valid body for an unknown chat is a 404 and creates no run", async () => {
    const runsBefore = await stack.prisma.run.count();
    const result = await stack.startRun("chat_does_not_exist", { input: "hi" });
    expect(result.status).toBe(404);
    expect(result.body.error.code).toBe("not_found");
    expect(await stack.prisma.run.count()).toBe(runsBefore);
  });

  it("a valid body is accepted with the documented defaults", async () => {
    const chatId = await stack.createChat();
    const result = await stack.startRun(chatId, { input: scenarioInput([{ text: "defaults" }]) });
    expect(result.status).toBe(202);
    // A fast worker may already have taken it by the time the answer is built.
    expect(result.body).toMatchObject({ chat_id: chatId, error: null, pending_approvals: [] });
    expect(["queued", "running"]).toContain(result.body.status);
    expect(typeof result.body.created_at).toBe("string");
    const row = await stack.prisma.run.findUniqueOrThrow({ where: { id: result.body.id } });
    expect(row).toMatchObject({ mode: "agent", allowBash: false, allowWebSearch: true, useWeb: false });
    await stack.waitForRun(result.body.id);
  });

  it("POST /api/chats validates its body and answers the documented shape", async () => {
    const badTitle = await stack.request("POST", "/api/chats", { body: { title: 5 } });
    expect(badTitle.status).toBe(400);
    expect(badTitle.body.error.details.field).toBe("title");
    const badWorkspace = await stack.request("POST", "/api/chats", { body: { workspace_id: 5 } });
    expect(badWorkspace.status).toBe(400);
    expect(badWorkspace.body.error.details.field).toBe("workspace_id");
    const created = await stack.request("POST", "/api/chats", { body: { title: "Plans" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), title: "Plans", workspace_id: null });
    expect((await stack.request("GET", `/api/chats/${created.body.id}`)).body).toEqual({ ...created.body, messages: [] });
  });

  it("GET /api/chats/:id and GET /api/runs/:id of unknown ids are 404", async () => {
    expect((await stack.request("GET", "/api/chats/chat_nope")).status).toBe(404);
    expect((await stack.request("GET", "/api/runs/run_nope")).status).toBe(404);
    expect((await stack.request("GET", "/api/runs/run_nope/events")).status).toBe(404);
    expect((await stack.request("POST", "/api/runs/run_nope/cancel")).status).toBe(404);
  });
});
