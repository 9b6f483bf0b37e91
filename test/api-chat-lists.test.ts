import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide, INJECTION, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

// The lists the web console reads (docs/api.md, "Added for the web console"): the caller's chats by
// activity, a chat's runs, the pending approvals across chats.

describe("GET /api/chats, GET /api/chats/:id/runs and GET /api/approvals", () => {
  let stack: TestStack;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  beforeAll(async () => {
    stack = await startTestStack();
    alice = await stack.createUser("lists-alice");
    bob = await stack.createUser("lists-bob");
  });
  afterAll(async () => {
    await stack?.close();
  });

  const createChat = async (token: string, title: string): Promise<string> => {
    const chat = await stack.request("POST", "/api/chats", { token, body: { title } });
    expect(chat.status).toBe(201);
    return chat.body.id;
  };

  it("lists the caller's chats, most recently active first, with their last run; another user sees none of them", async () => {
    const first = await createChat(alice.token, "first");
    const second = await createChat(alice.token, "second");
    const third = await createChat(alice.token, "third");
    // A run in the first chat makes it the most recently active.
    const runId = await stack.run(first, { input: "hello" }, alice.token);
    await waitForFinished(stack, runId, alice.token);

    const list = await stack.request("GET", "/api/chats", { token: alice.token });
    expect(list.status).toBe(200);
    // The oldest chat comes first: its run is the latest activity (the other two may share a millisecond).
    expect(list.body.chats.map((chat: { id: string }) => chat.id)).toHaveLength(3);
    expect(list.body.chats[0].id).toBe(first);
    expect(list.body.next_before).toBeNull();
    const run = await stack.getRun(runId, alice.token);
    expect(list.body.chats[0]).toEqual({
      id: first,
      title: "first",
      workspace_id: null,
      created_at: expect.any(String),
      updated_at: run.created_at,
      last_run: { id: runId, status: "completed", created_at: run.created_at },
    });
    for (const chat of list.body.chats.slice(1)) {
      expect([second, third]).toContain(chat.id);
      expect(chat).toMatchObject({ last_run: null, updated_at: chat.created_at });
    }

    const bobs = await stack.request("GET", "/api/chats", { token: bob.token });
    expect(bobs.status).toBe(200);
    expect(bobs.body).toEqual({ chats: [], next_before: null });
  });

  it("pages with limit and before: every chat once, in order, and the last page says so", async () => {
    const user = await stack.createUser("lists-pager");
    const created: string[] = [];
    for (let index = 0; index < 5; index += 1) created.push(await createChat(user.token, `chat ${index}`));
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const query: string = before === null ? "?limit=2" : `?limit=2&before=${encodeURIComponent(before)}`;
      const page = await stack.request("GET", `/api/chats${query}`, { token: user.token });
      expect(page.status).toBe(200);
      expect(page.body.chats.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.chats.map((chat: { id: string }) => chat.id));
      before = page.body.next_before;
      pages += 1;
    } while (before !== null && pages < 10);
    expect(pages).toBe(3);
    // The pages together are the whole list in its order (chats created in the same millisecond are ordered by id).
    const whole = await stack.request("GET", "/api/chats?limit=200", { token: user.token });
    expect(seen).toEqual(whole.body.chats.map((chat: { id: string }) => chat.id));
    expect([...seen].sort()).toEqual([...created].sort());
    const times = whole.body.chats.map((chat: { updated_at: string }) => Date.parse(chat.updated_at));
    expect(times).toEqual([...times].sort((left, right) => right - left));
  });

  it("refuses a bad limit or cursor with 400 invalid_request naming the field", async () => {
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=201", "limit"],
      ["limit=ten", "limit"],
      ["before=not-a-cursor", "before"],
      [`before=${Buffer.from('["yesterday","x"]').toString("base64url")}`, "before"],
    ] as const) {
      const response = await stack.request("GET", `/api/chats?${query}`, { token: alice.token });
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({ query, status: 400, code: "invalid_request" });
      expect(response.body.error.details.field).toBe(field);
    }
    expect((await stack.request("GET", "/api/chats?limit=200", { token: alice.token })).status).toBe(200);
  });

  it("lists a chat's runs newest first, each exactly as GET /api/runs/:id answers it", async () => {
    const chatId = await createChat(alice.token, "runs");
    const runIds: string[] = [];
    for (const input of ["one", "two", "three"]) {
      const runId = await stack.run(chatId, { input, multitask: "enqueue" }, alice.token);
      runIds.push(runId);
    }
    for (const runId of runIds) await waitForFinished(stack, runId, alice.token);

    const runs = await stack.request("GET", `/api/chats/${chatId}/runs`, { token: alice.token });
    expect(runs.status).toBe(200);
    const expected = await Promise.all([...runIds].reverse().map((runId) => stack.getRun(runId, alice.token)));
    expect(runs.body).toEqual({ runs: expected });

    const limited = await stack.request("GET", `/api/chats/${chatId}/runs?limit=2`, { token: alice.token });
    expect(limited.body.runs.map((run: { id: string }) => run.id)).toEqual([runIds[2], runIds[1]]);
    expect((await stack.request("GET", `/api/chats/${chatId}/runs?limit=101`, { token: alice.token })).body.error).toMatchObject({
      code: "invalid_request",
      details: { field: "limit" },
    });
    expect((await stack.request("GET", `/api/chats/${chatId}/runs`, { token: bob.token })).status).toBe(404);
    expect((await stack.request("GET", "/api/chats/chat_nope/runs", { token: alice.token })).status).toBe(404);
    const empty = await createChat(alice.token, "no runs");
    expect((await stack.request("GET", `/api/chats/${empty}/runs`, { token: alice.token })).body).toEqual({ runs: [] });
  });

  it("lists the caller's pending approvals across chats, newest first, each as its run shows it; decided ones leave the list", async () => {
    const user = await stack.createUser("lists-approver");
    const paused: { chatId: string; runId: string }[] = [];
    for (let index = 0; index < 2; index += 1) {
      const workspaceId = await stack.createWorkspace(user.token);
      await stack.putFile(workspaceId, "notes.md", INJECTION, user.token);
      const chatId = await stack.createChat({ workspaceId, token: user.token });
      const runId = await stack.run(chatId, { input: readThen({ tool: "write_file", args: { path: `out${index}.txt`, content: "x" } }) }, user.token);
      expect((await waitForParked(stack, runId, user.token)).status).toBe("awaiting_approval");
      paused.push({ chatId, runId });
    }

    const inbox = await stack.request("GET", "/api/approvals?status=pending", { token: user.token });
    expect(inbox.status).toBe(200);
    const newestFirst = [...paused].reverse();
    const expected = await Promise.all(
      newestFirst.map(async ({ chatId, runId }) => {
        const [pending] = (await stack.getRun(runId, user.token)).pending_approvals;
        return { ...pending, chat_id: chatId, run_id: runId, created_at: expect.any(String) };
      }),
    );
    expect(inbox.body).toEqual({ approvals: expected });
    expect((await stack.request("GET", "/api/approvals", { token: user.token })).body).toEqual(inbox.body);
    expect((await stack.request("GET", "/api/approvals", { token: bob.token })).body).toEqual({ approvals: [] });

    const refused = await stack.request("GET", "/api/approvals?status=allowed", { token: user.token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", details: { field: "status" } });

    expect((await decide(stack, inbox.body.approvals[0].id, "deny", { token: user.token })).status).toBe(202);
    const after = await stack.request("GET", "/api/approvals", { token: user.token });
    expect(after.body.approvals.map((approval: { run_id: string }) => approval.run_id)).toEqual([paused[0]!.runId]);
  });
});
