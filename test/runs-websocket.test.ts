import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { scenarioInput } from "@agentq/core/testing";
import { parkedRunOfNewUser } from "./support/approval-test-helpers.ts";
import { createTestRedis } from "./support/redis.ts";
import { waitForUserChannelSubscribers } from "./support/run-channel-subscribers.ts";
import { expectContiguous, startTestStack, type RunEvent, type TestStack } from "./support/test-stack.ts";

/** Tries to open /api/ws and resolves with the HTTP status of the refusal (or 101 if it opened). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", (error) => reject(error));
  });
}

describe("WebSocket /api/ws", () => {
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

  it("a subscriber that disconnects mid-run and resubscribes after its last seq sees every event exactly once", async () => {
    const workspaceId = await stack.createWorkspace();
    const chatId = await stack.createChat({ workspaceId });
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        // The first answer is held until the first socket, which has its three events (run.queued,
        // run.started, round.started), is closed: it leaves mid-run, whatever the machine's speed.
        { tool: "write_file", args: { path: "a.txt", content: "alpha" }, holdUntil: "ws-resubscribe" },
        { tool: "read_file", args: { path: "a.txt" }, delayMs: 300 },
        { text: "the file says alpha, and this answer streams slowly", chunkDelayMs: 100 },
      ]),
    });
    await stack.waitForEvent(runId, (event) => event.type === "round.started");

    const first = await stack.connectWebSocket();
    first.send({ type: "subscribe", run_id: runId, after: 0 });
    await first.waitFor(() => first.events(runId).length >= 3);
    first.close();
    const firstEvents = first.events(runId);
    expectContiguous(firstEvents);
    // The premise: the first socket left mid-run (had it seen the end, the second would wait for nothing).
    expect(firstEvents.map((event) => event.type)).not.toContain("run.completed");
    const lastSeen = firstEvents.at(-1)!.seq;

    const second = await stack.connectWebSocket();
    second.send({ type: "subscribe", run_id: runId, after: lastSeen });
    stack.provider.release("ws-resubscribe");
    await second.waitFor(() => second.events(runId).some((event) => event.type === "run.completed"), 30_000);
    const secondEvents = second.events(runId);
    second.close();
    expect(secondEvents[0]!.seq).toBe(lastSeen + 1);

    const union = [...first.events(runId).filter((event) => event.seq <= lastSeen), ...secondEvents];
    expectContiguous(union);
    expect(new Set(union.map((event) => event.seq)).size).toBe(union.length);
    expect(union).toEqual(await stack.events(runId));
    expect(union.at(-1)!.type).toBe("run.completed");
  });

  it("streamed text arrives as live deltas, which are not durable events", async () => {
    const text = "streamed piece by piece to the websocket subscriber";
    const chatId = await stack.createChat();
    // The first byte is held back until the subscription is active (its replay has arrived: the API
    // subscribes to the live channel before it replays), so no delta is published before it.
    const runId = await stack.run(chatId, { input: scenarioInput([{ text, holdUntil: "live-deltas", chunkDelayMs: 40 }]) });
    const socket = await stack.connectWebSocket();
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    await socket.waitFor(() => socket.events(runId).length > 0);
    expect(await stack.events(runId)).not.toContainEqual(expect.objectContaining({ type: "message.completed" }));
    stack.provider.release("live-deltas");
    await socket.waitFor(() => socket.events(runId).some((event) => event.type === "run.completed"), 30_000);
    socket.close();

    const deltas = socket.messages.filter((message) => message.type === "delta");
    expect(deltas.length).toBeGreaterThan(0);
    for (const delta of deltas) expect(delta).toEqual({ type: "delta", run_id: runId, text: expect.any(String) });
    expect(deltas.map((delta) => delta.text).join("")).toBe(text);

    const durable = await stack.events(runId);
    expect(durable.map((event) => event.type)).not.toContain("delta");
    expect(socket.events(runId)).toEqual(durable);
    // Every delta came before the run's terminal event on the socket.
    const terminalIndex = socket.messages.findIndex((message) => message.type === "event" && message.event.type === "run.completed");
    const lastDeltaIndex = socket.messages.findLastIndex((message) => message.type === "delta");
    expect(lastDeltaIndex).toBeLessThan(terminalIndex);
  });

  it("subscribing to a finished run replays its events; after its last seq there is nothing to send", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "finished already" }]) });
    await stack.waitForRun(runId);
    const durable = await stack.events(runId);

    const socket = await stack.connectWebSocket();
    socket.send({ type: "subscribe", run_id: runId, after: 2 });
    await socket.waitFor(() => socket.events(runId).some((event) => event.type === "run.completed"));
    expect(socket.events(runId)).toEqual(durable.slice(2));

    // A second run, subscribed after the first one's last seq: its events prove the socket processed
    // the first subscription and sent nothing for it.
    const otherRun = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "other" }]) });
    await stack.waitForRun(otherRun);
    socket.messages.length = 0;
    socket.send({ type: "subscribe", run_id: runId, after: durable.at(-1)!.seq });
    socket.send({ type: "subscribe", run_id: otherRun, after: 0 });
    await socket.waitFor(() => socket.events(otherRun).some((event) => event.type === "run.completed"));
    expect(socket.events(runId)).toEqual([]);
    socket.close();
  });

  it("one socket follows several runs, each contiguous and tagged with its run id", async () => {
    const runIds = await Promise.all(
      [1, 2, 3].map(async (index) => stack.run(await stack.createChat(), { input: scenarioInput([{ text: `answer ${index}`, chunkDelayMs: 20 }]) })),
    );
    const socket = await stack.connectWebSocket();
    for (const runId of runIds) socket.send({ type: "subscribe", run_id: runId, after: 0 });
    await socket.waitFor(() => runIds.every((runId) => socket.events(runId).some((event: RunEvent) => event.type === "run.completed")), 30_000);
    socket.close();
    for (const runId of runIds) {
      expectContiguous(socket.events(runId));
      expect(socket.events(runId)).toEqual(await stack.events(runId));
    }
  });

  it("after an unsubscribe (even one sent right behind the subscribe) no more events of that run arrive", async () => {
    const workspaceId = await stack.createWorkspace();
    await stack.putFile(workspaceId, "notes.txt", "notes");
    const chatId = await stack.createChat({ workspaceId });
    // Parks on an approval after the read: the run is still going when the socket unsubscribes.
    const runId = await stack.run(chatId, {
      input: scenarioInput([
        { tool: "read_file", args: { path: "notes.txt" } },
        { tool: "write_file", args: { path: "o.txt", content: "o" } },
        { text: "resumed" },
      ]),
    });
    const parked = await stack.waitForRun(runId, (run) => run.status === "awaiting_approval");
    const socket = await stack.connectWebSocket();
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    socket.send({ type: "unsubscribe", run_id: runId });
    // Messages are handled in order: once the probe's events arrive the unsubscribe has been handled.
    const probe = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "probe" }]) });
    socket.send({ type: "subscribe", run_id: probe, after: 0 });
    await socket.waitFor(() => socket.events(probe).some((event) => event.type === "run.completed"));
    const seenBefore = socket.events(runId).length;

    const decision = await stack.request("POST", "/api/approvals", {
      body: { tool_approval_id: parked.pending_approvals[0].id, tool_approval_decision: "allow_task" },
    });
    expect(decision.status).toBe(202);
    await stack.waitForRun(runId);
    // A second probe after the run finished: anything the run published would have arrived by now.
    const probe2 = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "probe 2" }]) });
    socket.send({ type: "subscribe", run_id: probe2, after: 0 });
    await socket.waitFor(() => socket.events(probe2).some((event) => event.type === "run.completed"));
    expect(socket.events(runId)).toHaveLength(seenBefore);
    expect(socket.events(runId).map((event) => event.type)).not.toContain("run.completed");
    socket.close();
  });

  it("subscribing twice to the same run replaces the first subscription: no event is sent twice after the second", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "twice", delayMs: 1500, chunkDelayMs: 50 }]) });
    const socket = await stack.connectWebSocket();
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    await socket.waitFor(() => socket.events(runId).some((event) => event.type === "run.completed"), 30_000);
    // A probe subscribed afterwards: a duplicate delivery would have arrived before its events.
    const probe = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "probe" }]) });
    await stack.waitForRun(probe);
    socket.send({ type: "subscribe", run_id: probe, after: 0 });
    await socket.waitFor(() => socket.events(probe).some((event) => event.type === "run.completed"));
    const durable = await stack.events(runId);
    const received = socket.events(runId);
    // Whatever the first subscription delivered before it was replaced, the second one replays from
    // seq 1 and then delivers each event once: the tail of the socket is exactly the durable list.
    expect(received.slice(-durable.length)).toEqual(durable);
    expect(received.filter((event) => event.type === "run.completed")).toHaveLength(1);
    socket.close();
  });

  it("closing the socket, unsubscribing, or the run ending releases the user's channel", async () => {
    const { userId, token, runId } = await parkedRunOfNewUser(stack, "channel-release");

    const first = await stack.connectWebSocket(token);
    first.send({ type: "subscribe", run_id: runId, after: 0 });
    await waitForSubscribers(userId, 1);
    first.close();
    await waitForSubscribers(userId, 0);

    const second = await stack.connectWebSocket(token);
    second.send({ type: "subscribe", run_id: runId, after: 0 });
    await waitForSubscribers(userId, 1);
    second.send({ type: "unsubscribe", run_id: runId });
    await waitForSubscribers(userId, 0);

    second.send({ type: "subscribe", run_id: runId, after: 0 });
    await waitForSubscribers(userId, 1);
    expect((await stack.request("POST", `/api/runs/${runId}/cancel`, { token })).status).toBe(202);
    await second.waitFor(() => second.events(runId).some((event) => event.type === "run.cancelled"));
    await waitForSubscribers(userId, 0);

    // Subscribing after the last event of a finished run holds nothing: once the probe (a run of the
    // same user, which holds the channel while it is followed) has ended, nothing is left.
    second.send({ type: "subscribe", run_id: runId, after: second.events(runId).at(-1)!.seq });
    const probe = await stack.run(await stack.createChat({ token }), { input: scenarioInput([{ text: "probe" }]) }, token);
    second.send({ type: "subscribe", run_id: probe, after: 0 });
    await second.waitFor(() => second.events(probe).some((event) => event.type === "run.completed"));
    await waitForSubscribers(userId, 0);
    second.close();
  });

  it("two runs of one user followed by two clients share the user's channel: each client gets only its run, and one leaving does not stop the other", async () => {
    const { id: userId, token } = await stack.createUser("two-followers");
    const probe = await stack.run(await stack.createChat({ token }), { input: scenarioInput([{ text: "probe" }]) }, token);
    await stack.waitForRun(probe, undefined, 20_000, token);
    // Both runs stream a few pieces of text, then stall until the test lets them go on. Deltas are live
    // only: the first byte is held back until both subscriptions are active (each has had its replay).
    const streaming = (text: string, name: string) =>
      scenarioInput([{ text, holdUntil: "shared-subscribed", chunkDelayMs: 40, stallAfterEvents: 4, stallUntil: name }]);
    const runA = await stack.run(await stack.createChat({ token }), { input: streaming("alpha ".repeat(10), "shared-a") }, token);
    const runB = await stack.run(await stack.createChat({ token }), { input: streaming("bravo ".repeat(10), "shared-b") }, token);
    const deltasOf = (socket: { messages: any[] }, runId: string) => socket.messages.filter((message) => message.type === "delta" && message.run_id === runId);
    const messagesOf = (socket: { messages: any[] }, runId: string) => socket.messages.filter((message) => message.run_id === runId);
    const textOf = (socket: { messages: any[] }, runId: string) =>
      deltasOf(socket, runId)
        .map((message) => message.text)
        .join("");

    const first = await stack.connectWebSocket(token);
    const second = await stack.connectWebSocket(token);
    first.send({ type: "subscribe", run_id: runA, after: 0 });
    second.send({ type: "subscribe", run_id: runB, after: 0 });
    await first.waitFor(() => first.events(runA).length > 0);
    await second.waitFor(() => second.events(runB).length > 0);
    stack.provider.release("shared-subscribed");
    // Deltas are live only (never replayed): each client hears its run on the shared channel.
    await first.waitFor(() => deltasOf(first, runA).length > 0);
    await second.waitFor(() => deltasOf(second, runB).length > 0);
    await waitForSubscribers(userId, 1);
    const channels = (await redis.pubsub("CHANNELS", `${stack.api.config.queuePrefix}:*`)) as string[];
    expect(channels.filter((channel) => channel.includes(runA) || channel.includes(runB))).toEqual([]);

    // The first client leaves mid-run; its next subscribe (a finished run) is answered only after the
    // unsubscribe was handled, so the second client's delivery goes on without it from here.
    first.send({ type: "unsubscribe", run_id: runA });
    first.send({ type: "subscribe", run_id: probe, after: 0 });
    await first.waitFor(() => first.events(probe).some((event) => event.type === "run.completed"));
    const firstHeardOfA = messagesOf(first, runA).length;
    const secondDeltasBefore = deltasOf(second, runB).length;
    await waitForSubscribers(userId, 1);

    stack.provider.release("shared-b");
    await second.waitFor(() => second.events(runB).some((event) => event.type === "run.completed"));
    expect(deltasOf(second, runB).length).toBeGreaterThan(secondDeltasBefore);
    expectContiguous(second.events(runB));
    expect(second.events(runB)).toEqual(await stack.events(runB, 0, token));
    stack.provider.release("shared-a");
    await stack.waitForRun(runA, undefined, 20_000, token);
    await waitForSubscribers(userId, 0);

    // Neither client got a message of the other's run, and the first nothing of its run once it left:
    // each one's text is a piece of its own run's answer, and its events a prefix of its run's own.
    expect(messagesOf(first, runB)).toEqual([]);
    expect(messagesOf(second, runA)).toEqual([]);
    expect(messagesOf(first, runA)).toHaveLength(firstHeardOfA);
    expect("alpha ".repeat(10)).toContain(textOf(first, runA));
    expect("bravo ".repeat(10)).toContain(textOf(second, runB));
    expect(first.events(runA)).toEqual((await stack.events(runA, 0, token)).slice(0, first.events(runA).length));
    first.close();
    second.close();
  });

  it("someone else's run (or no run) answers an error not_found and sends none of its events", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "admin only" }]) });
    await stack.waitForRun(runId);
    const mallory = await stack.createUser("mallory");
    const socket = await stack.connectWebSocket(mallory.token);
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    socket.send({ type: "subscribe", run_id: "run_does_not_exist", after: 0 });
    await socket.waitFor((messages) => messages.filter((message) => message.type === "error").length >= 2);
    expect(socket.messages).toEqual(
      expect.arrayContaining([
        { type: "error", code: "not_found", run_id: runId },
        { type: "error", code: "not_found", run_id: "run_does_not_exist" },
      ]),
    );
    expect(socket.messages.filter((message) => message.type === "event")).toEqual([]);
    socket.close();
  });

  it("a malformed client message gets an invalid_request error and the connection stays usable", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "still usable" }]) });
    const socket = await stack.connectWebSocket();
    socket.socket.send("not json");
    socket.send({ type: "subscribe", run_id: runId, after: -5 });
    socket.send({ type: "subscribe", run_id: `${runId}\u0000` });
    await socket.waitFor((messages) => messages.filter((message) => message.type === "error").length >= 3);
    expect(socket.messages.filter((message) => message.type === "error").map((message) => message.code)).toEqual([
      "invalid_request",
      "invalid_request",
      "invalid_request",
    ]);
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    await socket.waitFor(() => socket.events(runId).some((event) => event.type === "run.completed"));
    expectContiguous(socket.events(runId));
    socket.close();
  });

  it("a message nested deeper than 64 levels is refused with invalid_request, even with valid fields around it", async () => {
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "deep" }]) });
    await stack.waitForRun(runId);
    const socket = await stack.connectWebSocket();
    socket.socket.send(`{"type":"subscribe","run_id":${JSON.stringify(runId)},"extra":${"[".repeat(65)}${"]".repeat(65)}}`);
    socket.socket.send("{".repeat(50_000));
    await socket.waitFor((messages) => messages.filter((message) => message.type === "error").length >= 2);
    const errors = socket.messages.filter((message) => message.type === "error");
    expect(errors.map((message) => message.code)).toEqual(["invalid_request", "invalid_request"]);
    expect(errors[0].message).toMatch(/64 levels/);
    expect(socket.events(runId)).toHaveLength(0);
    // The connection stays usable.
    socket.send({ type: "subscribe", run_id: runId, after: 0 });
    await socket.waitFor(() => socket.events(runId).some((event) => event.type === "run.completed"));
    socket.close();
  });

  it("a missing or bad token refuses the upgrade with 401", async () => {
    const base = `${stack.url.replace("http", "ws")}/api/ws`;
    expect(await upgradeStatus(`${base}?token=aq_not-a-real-token`)).toBe(401);
    expect(await upgradeStatus(base)).toBe(401);
    expect(await upgradeStatus(`${base}?token=${encodeURIComponent(stack.api.adminToken)}`)).toBe(101);
  });
});
