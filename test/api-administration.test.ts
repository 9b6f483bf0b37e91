// The administration endpoints (issue 13): GET /api/services shows the live workers (presence in
// Postgres), the queue, runs by status and the sandbox; GET /api/audit pages through settings changes
// and approval decisions, newest first; both are for admins only. Real API, worker, Postgres, Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

let stack: TestStack;
let user: { id: string; token: string };
let adminId: string;

beforeAll(async () => {
  stack = await startTestStack();
  user = await stack.createUser("plain-user");
  adminId = (await stack.request("GET", "/api/me")).body.id;
});

afterAll(async () => {
  await stack?.close();
});

describe("GET /api/services", () => {
  it("lists the running worker with its concurrency, and counts runs, jobs and the queue", async () => {
    await waitUntil("the worker listed", async () => (await stack.request("GET", "/api/services")).body.workers.length === 1 || undefined, 15_000);
    const { status, body } = await stack.request("GET", "/api/services");
    expect(status).toBe(200);
    expect(body.workers[0]).toMatchObject({ id: stack.workers[0]!.workerId, concurrency: stack.workerConfig.concurrency, active_runs: 0 });
    expect(Date.parse(body.workers[0].last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.queue).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    expect(body.runs).toEqual({ queued: 0, running: 0, awaiting_approval: 0 });
    expect(body.jobs).toEqual({ running: 0 });
    expect(typeof body.sandbox.available).toBe("boolean");
  });

  it("counts a run that waits for approval", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.txt", "untrusted\n");
    stack.provider.enqueue(
      { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "out.txt", content: "x" } }] },
    );
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, { input: "go" });
    await stack.waitForRun(runId, (run) => run.status === "awaiting_approval");
    expect((await stack.request("GET", "/api/services")).body.runs).toMatchObject({ awaiting_approval: 1 });
    const approvalId = (await stack.getRun(runId)).pending_approvals[0].id;
    stack.provider.enqueue({ text: "denied, stopping" });
    expect((await stack.request("POST", "/api/approvals", { body: { tool_approval_id: approvalId, tool_approval_decision: "deny" } })).status).toBe(202);
    await stack.waitForRun(runId);
  });

  it("a stopped worker leaves the list at once", async () => {
    const second = await stack.startWorker();
    await waitUntil("both workers listed", async () => (await stack.request("GET", "/api/services")).body.workers.length === 2 || undefined, 15_000);
    await second.close();
    const ids = (await stack.request("GET", "/api/services")).body.workers.map((worker: { id: string }) => worker.id);
    expect(ids).toEqual([stack.workers[0]!.workerId]);
  });

  it("is for admins only", async () => {
    expect((await stack.request("GET", "/api/services", { token: user.token })).status).toBe(403);
  });
});

describe("GET /api/audit", () => {
  it("records settings changes and approval decisions with their actor, newest first", async () => {
    expect((await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: 30 } })).status).toBe(200);
    const { status, body } = await stack.request("GET", "/api/audit");
    expect(status).toBe(200);
    expect(body.entries[0]).toMatchObject({
      actor_id: adminId,
      action: "settings.updated",
      target: "settings",
      details: { changes: { agent_max_rounds: 30 } },
    });
    expect(body.entries[1]).toMatchObject({ actor_id: adminId, action: "approval.decided", details: { tool: "write_file", decision: "deny" } });
  });

  it("a refused settings change is not recorded", async () => {
    const before = (await stack.request("GET", "/api/audit")).body.entries.length;
    expect((await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: "many" } })).status).toBe(400);
    expect((await stack.request("GET", "/api/audit")).body.entries.length).toBe(before);
  });

  it("pages with limit and next_before without repeating or skipping an entry", async () => {
    for (const rounds of [31, 32, 33, 34]) await stack.request("PATCH", "/api/settings", { body: { agent_max_rounds: rounds } });
    const all = (await stack.request("GET", "/api/audit?limit=500")).body.entries.map((entry: { id: string }) => entry.id);
    const paged: string[] = [];
    let before: string | null = null;
    do {
      const query: string = before ? `?limit=2&before=${encodeURIComponent(before)}` : "?limit=2";
      const page = (await stack.request("GET", `/api/audit${query}`)).body;
      expect(page.entries.length).toBeLessThanOrEqual(2);
      paged.push(...page.entries.map((entry: { id: string }) => entry.id));
      before = page.next_before;
    } while (before !== null);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it("records a user's creation, change and new token, never the token itself", async () => {
    const created = await stack.createUser("audited-user");
    expect((await stack.request("PATCH", `/api/users/${created.id}`, { body: { role: "admin" } })).status).toBe(200);
    const rotated = await stack.request("POST", `/api/users/${created.id}/token`);
    expect(rotated.status).toBe(201);
    const { entries } = (await stack.request("GET", "/api/audit?limit=3")).body;
    expect(entries.map((entry: { action: string; target: string; actor_id: string }) => [entry.action, entry.target, entry.actor_id])).toEqual([
      ["user.token_rotated", `user:${created.id}`, adminId],
      ["user.updated", `user:${created.id}`, adminId],
      ["user.created", `user:${created.id}`, adminId],
    ]);
    expect(entries[1].details).toEqual({ changes: { role: "admin" } });
    expect(entries[2].details).toEqual({ name: "audited-user", role: "user" });
    const serialized = JSON.stringify(entries);
    expect(serialized).not.toContain(created.token);
    expect(serialized).not.toContain(rotated.body.token);
  });

  it("refuses a cursor it did not give, and non-admins", async () => {
    const bad = await stack.request("GET", "/api/audit?before=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field: "before" } });
    expect((await stack.request("GET", "/api/audit", { token: user.token })).status).toBe(403);
  });
});
