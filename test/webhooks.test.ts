import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { decide, eventually, injectedChat, readThen, waitForFinished, waitForParked } from "./support/approval-test-helpers.ts";
import { createTestRedis, deleteKeysWithPrefix } from "./support/redis.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A local webhook receiver: records every request; each path answers with the statuses its script
 * lists, one per request (the last one repeated).
 */
async function startReceiver(
  scripts: Record<string, number[]>,
): Promise<{ url: string; received: Received[]; server: Server; on: (path: string) => Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const seen = received.filter((entry) => entry.path === path).length;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      const script = scripts[path] ?? [404];
      response.statusCode = script[Math.min(seen, script.length - 1)]!;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, server, on: (path) => received.filter((entry) => entry.path === path) };
}

/**
 * The workers' webhook timing here. Production retries after 5 s, 30 s, 2 min... (API.md) and finds a
 * lost retry job 10 s past its due time; these keep the same order of events in a few seconds: a retry
 * still comes well after the test has seen (and, for the flushed Redis, acted on) the attempt before it.
 */
const WEBHOOK_TIMING = { webhookRetryDelaysMs: [2_000, 2_000, 2_000], webhookLostAfterMs: 500 } as const;

function verified(secret: string, entry: Received): any {
  return new Webhook(secret).verify(entry.body, {
    "webhook-id": String(entry.headers["webhook-id"]),
    "webhook-timestamp": String(entry.headers["webhook-timestamp"]),
    "webhook-signature": String(entry.headers["webhook-signature"]),
  });
}

describe("webhooks: signed deliveries of a user's run events", () => {
  let stack: TestStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  // The webhooks' owner is the stack's admin, whose token the helpers use; "other" is a second user.
  let user: { token: string };

  beforeAll(async () => {
    stack = await startTestStack({ worker: WEBHOOK_TIMING });
    receiver = await startReceiver({ "/ok": [200], "/flaky": [500, 200], "/rejecting": [400], "/flushed": [503, 200] });
    user = { token: stack.api.adminToken };
  });
  afterAll(async () => {
    await stack?.close();
    receiver?.server.close();
  });

  const register = (path: string, events: string[], token = user.token) =>
    stack.request("POST", "/api/webhooks", { token, body: { url: `${receiver.url}${path}`, events, description: path } });

  it("a URL to a private address is refused unless web_fetch_allow admits it; bad registrations change nothing", async () => {
    const refused = await register("/ok", ["run.completed"]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("destination_not_allowed");
    expect(refused.body.error.message).toContain("webhooks cannot be sent to");
    const byName = await stack.request("POST", "/api/webhooks", {
      token: user.token,
      body: { url: `http://localhost:${new URL(receiver.url).port}/ok`, events: ["run.completed"] },
    });
    expect(byName.status).toBe(400);
    expect(byName.body.error.code).toBe("destination_not_allowed");

    for (const body of [
      { url: "ftp://example.com/hook", events: ["run.completed"] },
      { url: "https://example.com/hook", events: ["run.exploded"] },
      { url: "https://example.com/hook", events: [] },
      { url: "https://example.com/hook", events: ["run.completed", "run.completed"] },
      { url: "https://example.com/hook", events: ["run.completed"], secret: "mine" },
    ]) {
      const result = await stack.request("POST", "/api/webhooks", { token: user.token, body });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error.code).toBe("invalid_request");
    }
    expect((await stack.request("GET", "/api/webhooks", { token: user.token })).body.webhooks).toEqual([]);

    const allowed = await stack.request("PATCH", "/api/settings", { body: { web_fetch_allow: ["127.0.0.1"] } });
    expect(allowed.status).toBe(200);
    const created = await register("/ok", ["approval.required", "run.completed"]);
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const listed = (await stack.request("GET", "/api/webhooks", { token: user.token })).body.webhooks;
    expect(listed).toEqual([
      { id: created.body.id, url: `${receiver.url}/ok`, events: ["approval.required", "run.completed"], description: "/ok", created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    await stack.request("DELETE", `/api/webhooks/${created.body.id}`, { token: user.token });
  });

  it("approval.required and run.completed arrive signed; a 500 is retried once with the same webhook-id; a 4xx is not retried", async () => {
    const ok = (await register("/ok", ["approval.required", "run.completed"])).body;
    const flaky = (await register("/flaky", ["run.completed"])).body;
    const rejecting = (await register("/rejecting", ["run.completed"])).body;

    const { chatId } = await injectedChat(stack);
    const runId = await stack.run(
      chatId,
      { input: readThen({ tool: "write_file", args: { path: "out.txt", content: "x" } }, { text: "wrote it" }) },
      user.token,
    );
    const parked = await waitForParked(stack, runId, user.token);
    expect(parked.status).toBe("awaiting_approval");

    await eventually("approval.required delivered", () => receiver.on("/ok").length >= 1, 10_000);
    const required = receiver.on("/ok")[0]!;
    const payload = verified(ok.secret, required);
    expect(payload).toMatchObject({ type: "approval.required", data: { run_id: runId, chat_id: chatId, event: { type: "approval.required" } } });
    expect(payload.data.event.data.approval_id).toBe(parked.pending_approvals[0].id);
    expect(payload.timestamp).toBe(payload.data.event.at);
    expect(required.headers["content-type"]).toBe("application/json");
    // Signed with this endpoint's secret, not another's.
    expect(() => verified(flaky.secret, required)).toThrow();

    expect((await decide(stack, parked.pending_approvals[0].id, "allow_task", { token: user.token })).status).toBe(202);
    expect((await waitForFinished(stack, runId, user.token)).status).toBe("completed");

    await eventually("run.completed delivered to /ok", () => receiver.on("/ok").length >= 2, 10_000);
    const completed = verified(ok.secret, receiver.on("/ok")[1]!);
    expect(completed).toMatchObject({ type: "run.completed", data: { run_id: runId, event: { type: "run.completed", data: { output: "wrote it" } } } });
    const events = await stack.events(runId, 0, user.token);
    expect(completed.data.event).toEqual(events.find((event) => event.type === "run.completed"));

    // The 500 is retried after the first delay of the schedule (in production 5 s, within API.md's 60 s), with the same id.
    await eventually("the flaky endpoint's retry", () => receiver.on("/flaky").length >= 2, 20_000);
    const [first, second] = receiver.on("/flaky");
    expect(first!.headers["webhook-id"]).toBe(second!.headers["webhook-id"]);
    expect(verified(flaky.secret, second!)).toMatchObject({ type: "run.completed" });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on("/flaky")).toHaveLength(2);
    expect(receiver.on("/ok")).toHaveLength(2);
    // The 400 came at the same time as the 500 and was never retried.
    expect(receiver.on("/rejecting")).toHaveLength(1);

    const flakyDeliveries = (await stack.request("GET", `/api/webhooks/${flaky.id}/deliveries`, { token: user.token })).body.deliveries;
    expect(flakyDeliveries).toHaveLength(1);
    expect(flakyDeliveries[0]).toMatchObject({
      id: first!.headers["webhook-id"],
      event: "run.completed",
      run_id: runId,
      attempts: 2,
      status: "succeeded",
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect(flakyDeliveries[0].attempt_log.map((attempt: any) => attempt.status_code)).toEqual([500, 200]);
    const rejected = (await stack.request("GET", `/api/webhooks/${rejecting.id}/deliveries`, { token: user.token })).body.deliveries;
    expect(rejected[0]).toMatchObject({ attempts: 1, status: "failed", last_status_code: 400, next_attempt_at: null });

    // Someone else's webhook is not found anywhere.
    const other = await stack.createUser("other");
    expect((await stack.request("GET", `/api/webhooks/${ok.id}/deliveries`, { token: other.token })).status).toBe(404);
    expect((await stack.request("DELETE", `/api/webhooks/${ok.id}`, { token: other.token })).status).toBe(404);
    expect((await stack.request("GET", "/api/webhooks", { token: other.token })).body.webhooks).toEqual([]);
    // The other user's runs reach none of this user's endpoints.
    const otherChat = await stack.createChat({ token: other.token });
    await waitForFinished(stack, await stack.run(otherChat, { input: scenarioInput([{ text: "mine" }]) }, other.token), other.token);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on("/ok")).toHaveLength(2);

    for (const webhook of [ok, flaky, rejecting])
      expect((await stack.request("DELETE", `/api/webhooks/${webhook.id}`, { token: user.token })).status).toBe(204);
    expect((await stack.request("GET", `/api/webhooks/${ok.id}/deliveries`, { token: user.token })).status).toBe(404);
  });

  it("a delivery whose retry job was lost with a flushed Redis is still made, from Postgres", async () => {
    const flushed = (await register("/flushed", ["run.completed"])).body;
    const chatId = await stack.createChat({ token: user.token });
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "done" }]) }, user.token);
    await waitForFinished(stack, runId, user.token);
    // The first attempt got a 503: its retry is a delayed job in Redis, and Redis loses it.
    await eventually("the first attempt recorded", async () => {
      const deliveries = (await stack.request("GET", `/api/webhooks/${flushed.id}/deliveries`, { token: user.token })).body.deliveries;
      return deliveries[0]?.status === "pending" && deliveries[0]?.attempts === 1;
    });
    const redis = createTestRedis();
    try {
      await deleteKeysWithPrefix(redis, stack.workerConfig.queuePrefix);
    } finally {
      await redis.quit();
    }
    // The flush came before the retry was due: its job really was lost, so the retry below came from Postgres.
    expect(receiver.on("/flushed")).toHaveLength(1);
    await eventually("the retry after the flush", () => receiver.on("/flushed").length >= 2, 40_000);
    const [first, second] = receiver.on("/flushed");
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(verified(flushed.secret, second!)).toMatchObject({ type: "run.completed", data: { run_id: runId } });
    await eventually("the delivery recorded as succeeded", async () => {
      const deliveries = (await stack.request("GET", `/api/webhooks/${flushed.id}/deliveries`, { token: user.token })).body.deliveries;
      return deliveries[0]?.status === "succeeded";
    });
  }, 60_000);
});

describe("webhooks: a worker that dies mid-delivery", () => {
  let stack: TestStack;
  const requests: IncomingHttpHeaders[] = [];
  // The first request is never answered: its worker is killed while it waits.
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests.push(request.headers);
      if (requests.length > 1) response.end("ok");
    });
  });

  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await stack?.close();
    receiver.closeAllConnections();
    receiver.close();
  });

  it("leaves an attempt that another worker makes again, with the same webhook-id", async () => {
    await stack.request("PATCH", "/api/settings", { body: { web_fetch_allow: ["127.0.0.1"] } });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const webhook = (await stack.request("POST", "/api/webhooks", { body: { url, events: ["run.completed"] } })).body;
    const child = stack.spawnWorker({ WEBHOOK_TIMEOUT_MS: "2000" });
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "done" }]) });
    await stack.waitForRun(runId);
    await eventually("the first attempt reaches the receiver", () => requests.length === 1);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    await stack.startWorker({ webhookTimeoutMs: 2000, webhookLostAfterMs: WEBHOOK_TIMING.webhookLostAfterMs });
    await eventually("the attempt made again by the other worker", () => requests.length === 2, 30_000);
    expect(requests[1]!["webhook-id"]).toBe(requests[0]!["webhook-id"]);
    await eventually("recorded as succeeded", async () => {
      const [delivery] = (await stack.request("GET", `/api/webhooks/${webhook.id}/deliveries`)).body.deliveries;
      return delivery?.status === "succeeded" && delivery.attempts === 2 && delivery.last_status_code === 200;
    });
    expect(requests).toHaveLength(2);
  }, 60_000);
});
