import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChat, createUser, generateId, QuotaExceededError, rotateUserToken } from "@agentq/core";
import { scenarioInput } from "@agentq/core/testing";
import { createRun } from "../packages/core/src/runs/create-run.ts";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";
import { sleep, startTestStack, type TestStack } from "./support/test-stack.ts";

// Team operations (API.md): max_active_runs, daily quotas, usage in /api/me, limits through PATCH
// /api/users, and the per-user rate limit.

describe("per-user limits and quotas", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function userWithLimits(name: string, limits: Record<string, number | null>): Promise<{ id: string; token: string }> {
    const user = await stack.createUser(`${name}-${generateId("n").slice(-6)}`);
    const patched = await stack.request("PATCH", `/api/users/${user.id}`, { body: limits });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject(limits);
    return user;
  }

  it("max_active_runs holds under many simultaneous creations: never more active than the limit, the rest queued with no job", async () => {
    const user = await userWithLimits("mara", { max_active_runs: 3 });
    const chats = await Promise.all(Array.from({ length: 30 }, () => stack.createChat({ token: user.token })));
    // Every run holds its first round until released: they stay active as long as the test wants.
    const input = scenarioInput([{ text: "held", holdUntil: "mara" }]);
    let maxActive = 0;
    let maxRunning = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [active, running] = await Promise.all([
          stack.prisma.run.count({ where: { userId: user.id, OR: [{ status: "running" }, { status: "queued", dispatchedAt: { not: null } }] } }),
          stack.prisma.run.count({ where: { userId: user.id, status: "running" } }),
        ]);
        maxActive = Math.max(maxActive, active);
        maxRunning = Math.max(maxRunning, running);
        await sleep(10);
      }
    })();
    const created = await Promise.all(chats.map((chatId) => stack.startRun(chatId, { input }, user.token)));
    expect(created.map((response) => response.status)).toEqual(chats.map(() => 202));
    await waitUntil(async () => (await stack.prisma.run.count({ where: { userId: user.id, status: "running" } })) === 3);
    // The worker has 20 slots: had any other run been handed to it, it would be running by now.
    await sleep(1500);
    expect(await stack.prisma.run.count({ where: { userId: user.id, status: "running" } })).toBe(3);
    expect(await stack.prisma.run.count({ where: { userId: user.id, status: "queued", dispatchedAt: null } })).toBe(27);
    const me = await stack.request("GET", "/api/me", { token: user.token });
    expect(me.body.usage).toEqual({ active_runs: 3, runs_today: 30, tokens_today: 0 });
    expect(me.body.limits).toEqual({ max_active_runs: 3, runs_per_day: 0, tokens_per_day: 0 });

    stack.provider.release("mara");
    const ids = created.map((response) => response.body.id as string);
    for (const id of ids) expect((await stack.waitForRun(id, undefined, 60_000, user.token)).status).toBe("completed");
    sampling = false;
    await sampler;
    expect(maxActive).toBeLessThanOrEqual(3);
    expect(maxRunning).toBe(3);
  }, 120_000);

  it("a raised max_active_runs admits the waiting runs at once", async () => {
    const user = await userWithLimits("raul", { max_active_runs: 1 });
    const input = scenarioInput([{ text: "held", holdUntil: "raul" }]);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push(await stack.run(await stack.createChat({ token: user.token }), { input }, user.token));
    await waitUntil(async () => (await stack.prisma.run.count({ where: { userId: user.id, status: "running" } })) === 1);
    const raised = await stack.request("PATCH", `/api/users/${user.id}`, { body: { max_active_runs: 5 } });
    expect(raised.body.max_active_runs).toBe(5);
    await waitUntil(async () => (await stack.prisma.run.count({ where: { userId: user.id, status: "running" } })) === 3);
    // null: back to the deployment's setting (user_max_active_runs, 20).
    const reset = await stack.request("PATCH", `/api/users/${user.id}`, { body: { max_active_runs: null } });
    expect(reset.body.max_active_runs).toBeNull();
    expect((await stack.request("GET", "/api/me", { token: user.token })).body.limits.max_active_runs).toBe(20);
    stack.provider.release("raul");
    for (const id of ids) expect((await stack.waitForRun(id, undefined, 20_000, user.token)).status).toBe("completed");
  });

  it("over runs_per_day: 429 quota_exceeded with quota, limit and resets_at, and nothing created", async () => {
    const user = await userWithLimits("quinn", { runs_per_day: 2 });
    const chatId = await stack.createChat({ token: user.token });
    for (let index = 0; index < 2; index += 1) {
      const id = await stack.run(chatId, { input: scenarioInput([{ text: "ok" }]) }, user.token);
      await stack.waitForRun(id, undefined, 20_000, user.token);
    }
    const refused = await stack.startRun(chatId, { input: "third" }, user.token);
    expect(refused.status).toBe(429);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(refused.body.error).toMatchObject({ code: "quota_exceeded", details: { quota: "runs_per_day", limit: 2, resets_at: tomorrow.toISOString() } });
    expect(await stack.prisma.run.count({ where: { chatId } })).toBe(2);
    const me = await stack.request("GET", "/api/me", { token: user.token });
    expect(me.body).toMatchObject({ usage: { runs_today: 2, active_runs: 0 }, limits: { runs_per_day: 2 }, resets_at: tomorrow.toISOString() });
  });

  it("the daily quotas reset at the UTC day boundary (injected clock)", async () => {
    const { id: userId } = await createUser(stack.prisma, { name: `dora-${generateId("n").slice(-6)}`, role: "user" });
    await stack.prisma.user.update({ where: { id: userId }, data: { runsPerDay: 2 } });
    const chat = await createChat(stack.prisma, { userId, title: undefined, workspaceId: undefined, generateId });
    let now = new Date("2030-03-04T23:59:58.000Z");
    const dependencies = { prisma: stack.prisma, clock: () => now, generateId };
    const start = () =>
      createRun(dependencies, {
        userId,
        chatId: chat.id,
        input: "x",
        model: "fake-model",
        mode: "agent",
        allowBash: false,
        allowWebSearch: false,
        useWeb: false,
        tools: [],
        multitask: "enqueue",
      });
    await start();
    now = new Date("2030-03-04T23:59:59.000Z");
    await start();
    const refused = await start().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect((refused as QuotaExceededError).details).toEqual({ quota: "runs_per_day", limit: 2, resets_at: "2030-03-05T00:00:00.000Z" });
    now = new Date("2030-03-05T00:00:00.000Z");
    expect((await start()).created).toBe(true);
    expect(await stack.prisma.run.count({ where: { userId } })).toBe(3);
  });

  it("a run that crosses tokens_per_day finishes its round and ends failed with quota_exceeded; new runs are refused", async () => {
    const user = await userWithLimits("tess", { tokens_per_day: 1 });
    const workspaceId = await stack.createWorkspace(user.token);
    const chatId = await stack.createChat({ workspaceId, token: user.token });
    const runId = await stack.run(
      chatId,
      { input: scenarioInput([{ tool: "write_file", args: { path: "round-one.txt", content: "written in round 1" } }, { text: "never sent" }]) },
      user.token,
    );
    const run = await stack.waitForRun(runId, undefined, 30_000, user.token);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("quota_exceeded");
    expect(run.rounds).toBe(1);
    // The round that crossed the quota finished: its tool call ran and has its result.
    const file = await stack.request("GET", `/api/workspaces/${workspaceId}/files/round-one.txt`, { token: user.token });
    expect(file.status).toBe(200);
    const types = (await stack.events(runId, 0, user.token)).map((event) => event.type);
    expect(types).toContain("tool.completed");
    expect(types.at(-1)).toBe("run.failed");

    const refused = await stack.startRun(chatId, { input: "more" }, user.token);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({ quota: "tokens_per_day", limit: 1 });
    const me = await stack.request("GET", "/api/me", { token: user.token });
    expect(me.body.usage.tokens_today).toBeGreaterThan(0);
  });

  it("admins see every user's limits and usage, never their chats", async () => {
    const user = await userWithLimits("vera", { runs_per_day: 9 });
    const chatId = await stack.createChat({ token: user.token });
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "private answer" }], "private question") }, user.token);
    await stack.waitForRun(runId, undefined, 20_000, user.token);
    const listed = await stack.request("GET", "/api/users");
    const entry = listed.body.users.find((candidate: { id: string }) => candidate.id === user.id);
    expect(entry).toMatchObject({ runs_per_day: 9, limits: { runs_per_day: 9, max_active_runs: 20 }, usage: { runs_today: 1, active_runs: 0 } });
    expect(JSON.stringify(listed.body)).not.toContain("private");
    // The admin's own chat list and the user's chat stay apart.
    expect((await stack.request("GET", `/api/chats/${chatId}`)).status).toBe(404);
    // A non-admin sees no one else's usage.
    expect((await stack.request("GET", "/api/users", { token: user.token })).status).toBe(403);
  });
});

describe("the API rate limit", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ rateLimitPerMinute: 5 });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("answers 429 rate_limited with Retry-After once a user passes api_rate_limit_per_minute; other users are not affected", async () => {
    const statuses: number[] = [];
    let limited: { body: any; headers: Headers } | undefined;
    for (let index = 0; index < 7; index += 1) {
      const response = await requestJson(`${api.url}/api/me`, { token: api.adminToken });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(limited?.body.error).toMatchObject({ code: "rate_limited", details: { limit: 5 } });
    const retryAfter = Number(limited?.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Counted per user: another user's requests go through.
    const other = await createUser(api.prisma, { name: "other", role: "user" });
    expect((await requestJson(`${api.url}/api/me`, { token: other.token })).status).toBe(200);
    // Public routes are not counted (health checks, the console).
    expect((await requestJson(`${api.url}/healthz`)).status).toBe(200);
  });

  it("counts a decision, whose own statement checks the token, like any request: a bad body too, and a bad token stays 401", async () => {
    const decider = await createUser(api.prisma, { name: "decider", role: "user" });
    const decide = (body: unknown, token = decider.token) => requestJson(`${api.url}/api/approvals`, { token, body });
    const unknown = { tool_approval_id: "apr_doesnotexist0123456789", tool_approval_decision: "allow_task" };
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await decide(unknown)).status);
    // A malformed body is counted as it would be on any other route, and answered 400 under the limit.
    statuses.push((await decide({ tool_approval_id: "apr_x", tool_approval_decision: "maybe" })).status);
    const over = await decide(unknown);
    statuses.push(over.status);
    const overMalformed = await decide({ tool_approval_id: "apr_x", tool_approval_decision: "maybe" });
    statuses.push(overMalformed.status);
    expect(statuses).toEqual([404, 404, 404, 404, 400, 429, 429]);
    expect(over.body.error).toMatchObject({ code: "rate_limited", details: { limit: 5 } });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A token that does not work is refused before anything is counted or read.
    expect((await decide(unknown, "aq_not_a_token")).status).toBe(401);
    expect((await decide({ tool_approval_decision: "maybe" }, "aq_not_a_token")).status).toBe(401);
  });

  it("counts a run's creation, whose own statement checks the token, before it writes: nothing is created over the limit, and a token that stopped working stays 401", async () => {
    const creator = await createUser(api.prisma, { name: "creator", role: "user" });
    const chat = await requestJson(`${api.url}/api/chats`, { token: creator.token, body: {} });
    const start = (token = creator.token, body: unknown = { input: "hello", multitask: "enqueue" }) =>
      requestJson(`${api.url}/api/chats/${chat.body.id}/runs`, { token, body });
    const runsOfChat = () => api.prisma.run.count({ where: { chatId: chat.body.id } });
    const statuses = [chat.status];
    // The first creation looks the token up; the next ones are counted before their statement checks it.
    for (let index = 0; index < 3; index += 1) statuses.push((await start()).status);
    statuses.push((await start(creator.token, { input: 42 })).status);
    const over = await start();
    statuses.push(over.status);
    expect(statuses).toEqual([201, 202, 202, 202, 400, 429]);
    expect(over.body.error).toMatchObject({ code: "rate_limited", details: { limit: 5 } });
    expect(await runsOfChat()).toBe(3);

    const newToken = await rotateUserToken(api.prisma, creator.id);
    // The old token is refused, not limited, and then no longer counted against its user.
    expect((await start()).status).toBe(401);
    expect((await start()).status).toBe(401);
    expect((await start("aq_not_a_token")).status).toBe(401);
    // Counted per user: the same user under their new token is still over the limit.
    expect((await start(newToken)).status).toBe(429);
    expect(await runsOfChat()).toBe(3);
  });
});

describe("the API rate limit without Redis", () => {
  it("fails open: requests go through and the outage is logged", async () => {
    const api = await startTestApi({ rateLimitPerMinute: 2, config: { redisUrl: "redis://127.0.0.1:1", readinessTimeoutMs: 1000 } });
    try {
      for (let index = 0; index < 4; index += 1) expect((await requestJson(`${api.url}/api/me`, { token: api.adminToken })).status).toBe(200);
      expect(api.logs.some((line) => line.includes("rate limiter unavailable"))).toBe(true);
    } finally {
      await api.close();
    }
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(25);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
