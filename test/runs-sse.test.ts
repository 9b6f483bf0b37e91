import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { parkedRunOfNewUser } from "./support/approval-test-helpers.ts";
import { createTestRedis } from "./support/redis.ts";
import { waitForUserChannelSubscribers } from "./support/run-channel-subscribers.ts";
import { expectContiguous, startTestStack, type RunEvent, type TestStack } from "./support/test-stack.ts";

interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

interface SseResult {
  status: number;
  contentType: string | null;
  messages: SseMessage[];
  events: RunEvent[];
  /** The body, when the answer was not a stream. */
  text: string;
}

/** Parses an SSE body into messages (comment lines, the keep-alives, are ignored). */
function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const message: SseMessage = { data: "" };
    let hasData = false;
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") {
        message.data = hasData ? `${message.data}\n${value}` : value;
        hasData = true;
      } else if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
    }
    if (hasData) messages.push(message);
  }
  return messages;
}

describe("server-sent events (GET /api/runs/:id/events with Accept: text/event-stream)", () => {
  let stack: TestStack;
  let redis: Redis;
  beforeAll(async () => {
    stack = await startTestStack();
    redis = createTestRedis();
  });
  afterAll(async () => {
    await redis?.quit();
    await stack?.close();
  });

  /** Waits until the API holds `expected` subscriptions of the user's run channel (0 or 1). */
  const waitForSubscribers = (userId: string, expected: number) => waitForUserChannelSubscribers(redis, stack.api.config.queuePrefix, userId, expected);

  /** Reads the whole stream; the deadline fails the test if the server never closes it. */
  async function readStream(path: string, options: { token?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<SseResult> {
    const response = await fetch(`${stack.url}${path}`, {
      headers: { authorization: `Bearer ${options.token ?? stack.api.adminToken}`, accept: "text/event-stream", ...options.headers },
      signal: AbortSignal.timeout(options.timeoutMs ?? 25_000),
    });
    const text = await response.text();
    const isStream = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
    const messages = isStream ? parseSse(text) : [];
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      messages,
      events: messages.map((message) => JSON.parse(message.data) as RunEvent),
      text,
    };
  }

  it("streams a live run's events as id:/data: messages and closes after the run finishes", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "write_file", args: { path: "s.txt", content: "sse" }, delayMs: 500 },
        { text: "streamed over sse", chunkDelayMs: 50 },
      ]),
    });
    const result = await readStream(`/api/runs/${runId}/events`);
    expect(result.status).toBe(200);
    expect(result.contentType).toMatch(/^text\/event-stream/);
    expect(result.events.at(-1)!.type).toBe("run.completed");
    expectContiguous(result.events);
    for (const message of result.messages) expect(message.id).toBe(String((JSON.parse(message.data) as RunEvent).seq));
    // The stream ended because the run finished: it holds every durable event of the run.
    expect((await stack.getRun(runId)).status).toBe("completed");
    expect(result.events).toEqual(await stack.events(runId));
  });

  it("an EventSource-style client (token in the query, default message type) gets the same stream", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "for a browser" }]) });
    await stack.waitForRun(runId);
    const response = await fetch(`${stack.url}/api/runs/${runId}/events?token=${encodeURIComponent(stack.api.adminToken)}`, {
      headers: { accept: "text/event-stream" },
      signal: AbortSignal.timeout(25_000),
    });
    expect(response.status).toBe(200);
    const messages = parseSse(await response.text());
    // No `event:` field: EventSource's onmessage sees every message.
    expect(messages.every((message) => message.event === undefined)).toBe(true);
    expect(messages.map((message) => (JSON.parse(message.data) as RunEvent).type).at(-1)).toBe("run.completed");
    // The query token is accepted only where a browser cannot send headers.
    const elsewhere = await fetch(`${stack.url}/api/runs/${runId}?token=${encodeURIComponent(stack.api.adminToken)}`);
    expect(elsewhere.status).toBe(401);
  });

  it("a reconnect with Last-Event-ID: N gets exactly the events after N", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "reconnecting" }]) });
    await stack.waitForRun(runId);
    const durable = await stack.events(runId);
    expect(durable.length).toBeGreaterThan(3);

    const resumed = await readStream(`/api/runs/${runId}/events`, { headers: { "last-event-id": "3" } });
    expect(resumed.status).toBe(200);
    expect(resumed.events).toEqual(durable.slice(3));
    // Last-Event-ID wins over ?after= (a reconnecting EventSource keeps its original URL).
    const both = await readStream(`/api/runs/${runId}/events?after=1`, { headers: { "last-event-id": "2" } });
    expect(both.events).toEqual(durable.slice(2));
    const byQuery = await readStream(`/api/runs/${runId}/events?after=1`);
    expect(byQuery.events).toEqual(durable.slice(1));
  });

  it("a reconnect after the last event of a finished run closes at once with nothing", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "nothing more" }]) });
    await stack.waitForRun(runId);
    const lastSeq = (await stack.events(runId)).at(-1)!.seq;
    const startedAt = Date.now();
    const result = await readStream(`/api/runs/${runId}/events`, { headers: { "last-event-id": String(lastSeq) }, timeoutMs: 10_000 });
    expect(result.status).toBe(200);
    expect(result.events).toEqual([]);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
  });

  it("a client that reconnects mid-run with Last-Event-ID misses nothing and sees nothing twice", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, {
      input: scenarioInput([{ text: "x".repeat(16), chunkDelayMs: 50, delayMs: 1500 }, { text: "final" }].slice(0, 1)),
    });
    // First connection: read until round.started, then drop it.
    const controller = new AbortController();
    const response = await fetch(`${stack.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${stack.api.adminToken}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const deadline = Date.now() + 20_000;
    while (!parseSse(text).some((message) => message.event === "round.started")) {
      if (Date.now() > deadline) throw new Error(`no round.started on the stream: ${text}`);
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
    const firstEvents = parseSse(text).map((message) => JSON.parse(message.data) as RunEvent);
    expectContiguous(firstEvents);
    const lastId = parseSse(text).at(-1)!.id!;

    const rest = await readStream(`/api/runs/${runId}/events`, { headers: { "last-event-id": lastId } });
    const union = [...firstEvents, ...rest.events];
    expectContiguous(union);
    expect(union.at(-1)!.type).toBe("run.completed");
    expect(union).toEqual(await stack.events(runId));
  });

  it("a client that goes away releases the user's channel, and so does a stream that ended", async () => {
    const { userId, token, runId, parked } = await parkedRunOfNewUser(stack, "sse-channel-release");
    const controller = new AbortController();
    const response = await fetch(`${stack.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    await waitForSubscribers(userId, 1);
    controller.abort();
    await waitForSubscribers(userId, 0);

    // Following to the end: the stream closes on run.cancelled and lets go of the channel.
    const following = readStream(`/api/runs/${runId}/events`, { token });
    await waitForSubscribers(userId, 1);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`, { token })).status).toBe(202);
    const result = await following;
    expect(result.events.at(-1)!.type).toBe("run.cancelled");
    expect(parked.pending_approvals).toHaveLength(1);
    await waitForSubscribers(userId, 0);

    // A reconnect after the last event ends at once and holds nothing either.
    const lastSeq = result.events.at(-1)!.seq;
    expect((await readStream(`/api/runs/${runId}/events`, { token, headers: { "last-event-id": String(lastSeq) } })).events).toEqual([]);
    await waitForSubscribers(userId, 0);
  });

  it("someone else's run is a 404, not a stream", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "private" }]) });
    const mallory = await stack.createUser("mallory");
    const result = await readStream(`/api/runs/${runId}/events`, { token: mallory.token });
    expect(result.status).toBe(404);
    expect(JSON.parse(result.text).error.code).toBe("not_found");
    await stack.waitForRun(runId);
  });
});
