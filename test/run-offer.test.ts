// A run's offer to one worker (queue run-offer.ts) against the real Redis: it reaches the worker's own
// channel only (a new run with its context, the worker's start channel), says whether anyone listened,
// and a worker reads back exactly what was offered and nothing else.
import { HANDOVER_CONTEXT_MAX_LENGTH, RunStatus } from "@agentq/core";
import {
  apiDecisionReplyChannel,
  createRedis,
  offerDecision,
  offerRun,
  parseDecisionOffer,
  parseDecisionReply,
  parseRunOffer,
  type RedisClient,
  replyToDecision,
  workerChannel,
  workerDecisionChannel,
  workerStartChannel,
} from "@agentq/queue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { waitUntil } from "./support/wait-until.ts";

const prefix = uniqueQueuePrefix();
let connection: RedisClient;
let subscriber: RedisClient;
const received: { channel: string; text: string }[] = [];

beforeAll(async () => {
  connection = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
  subscriber = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
  subscriber.on("message", (channel: string, text: string) => received.push({ channel, text }));
  await subscriber.subscribe(workerChannel(prefix, "worker-a"));
});

afterAll(async () => {
  await subscriber.quit();
  await connection.quit();
});

describe("offerRun", () => {
  it("reaches the named worker's channel and says so; a worker nobody runs is told apart", async () => {
    const offer = { runId: "run_1", generation: { lastEventSeq: 7, leaseVersion: 2 } };
    expect(await offerRun(connection, prefix, "worker-a", offer)).toBe(true);
    expect(await offerRun(connection, prefix, "worker-gone", offer)).toBe(false);
    await waitUntil("the offer heard", () => (received.length > 0 ? true : undefined));
    expect(received).toHaveLength(1);
    expect(received[0]!.channel).toBe(workerChannel(prefix, "worker-a"));
    expect(parseRunOffer(received[0]!.text)).toEqual(offer);
  });

  it("carries the deciding request's trace fields when there are some", async () => {
    const traced = {
      runId: "run_2",
      generation: { lastEventSeq: 3, leaseVersion: 1 },
      trace: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    };
    received.length = 0;
    expect(await offerRun(connection, prefix, "worker-a", traced)).toBe(true);
    await waitUntil("the offer heard", () => (received.length > 0 ? true : undefined));
    expect(parseRunOffer(received[0]!.text)).toEqual(traced);
  });

  it("carries a handover, the run's context and the decision, as it was given", async () => {
    const handed = {
      runId: "run_3",
      generation: { lastEventSeq: 9, leaseVersion: 4 },
      handover: {
        context: JSON.stringify({ id: "run_3", open_calls: [] }),
        decided: [
          { approvalId: "apr_1", status: "allowed" as const, editedArguments: { path: "a.txt" } },
          { approvalId: "apr_2", status: "allowed" as const },
        ],
        grant: { tool: "write_file", effects: ["write"] },
      },
    };
    received.length = 0;
    expect(await offerRun(connection, prefix, "worker-a", handed)).toBe(true);
    await waitUntil("the offer heard", () => (received.length > 0 ? true : undefined));
    expect(parseRunOffer(received[0]!.text)).toEqual(handed);
  });

  it("refuses, publishing nothing, a handover the worker would not read", async () => {
    received.length = 0;
    const tooLong = { context: "x".repeat(HANDOVER_CONTEXT_MAX_LENGTH + 1), decided: [{ approvalId: "apr_1", status: "allowed" as const }], grant: null };
    await expect(
      offerRun(connection, prefix, "worker-a", { runId: "run_4", generation: { lastEventSeq: 1, leaseVersion: 2 }, handover: tooLong }),
    ).rejects.toThrow(/does not fit the offer message/);
    const undecided = { context: "{}", decided: [], grant: null };
    await expect(
      offerRun(connection, prefix, "worker-a", { runId: "run_4", generation: { lastEventSeq: 1, leaseVersion: 2 }, handover: undecided }),
    ).rejects.toThrow();
    // An offer that fits still goes through, and it is the first the channel carries since.
    expect(await offerRun(connection, prefix, "worker-a", { runId: "run_5", generation: { lastEventSeq: 1, leaseVersion: 2 } })).toBe(true);
    await waitUntil("the offer heard", () => (received.length > 0 ? true : undefined));
    expect(received.map((message) => parseRunOffer(message.text)?.runId)).toEqual(["run_5"]);
  });

  it("sends a new run's context to the worker's start channel, where the worker reads it as the JSON it is", async () => {
    const starter = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
    const started: { channel: string; text: string }[] = [];
    starter.on("message", (channel: string, text: string) => started.push({ channel, text }));
    await starter.subscribe(workerStartChannel(prefix, "worker-b"));
    try {
      received.length = 0;
      const context = { id: "run_6", messages: [{ role: "user", content: 'say "hi"\n' }], open_calls: [] };
      const offer = { runId: "run_6", generation: { lastEventSeq: 1, leaseVersion: 0 }, start: { context: JSON.stringify(context), admissionAwaited: true } };
      expect(await offerRun(connection, prefix, "worker-b", offer)).toBe(true);
      await waitUntil("the offer heard", () => (started.length > 0 ? true : undefined));
      expect(started.map((message) => message.channel)).toEqual([workerStartChannel(prefix, "worker-b")]);
      expect(parseRunOffer(started[0]!.text)).toEqual({ ...offer, start: { context, admissionAwaited: true } });
      // Nothing on the worker's plain channel besides.
      expect(received).toEqual([]);
    } finally {
      await starter.quit();
    }
  });

  it("offers a new run without its context to a worker that does not listen for contexts (an earlier release), and says when nobody listens", async () => {
    received.length = 0;
    const offer = { runId: "run_7", generation: { lastEventSeq: 1, leaseVersion: 0 } };
    const start = { context: JSON.stringify({ id: "run_7" }), admissionAwaited: false };
    expect(await offerRun(connection, prefix, "worker-a", { ...offer, start })).toBe(true);
    await waitUntil("the offer heard", () => (received.length > 0 ? true : undefined));
    expect(received.map((message) => message.channel)).toEqual([workerChannel(prefix, "worker-a")]);
    expect(parseRunOffer(received[0]!.text)).toEqual(offer);
    expect(await offerRun(connection, prefix, "worker-gone", { ...offer, start })).toBe(false);
  });

  it("a worker's channel carrying anything but an offer is read as nothing", () => {
    for (const text of ["", "not json", "null", "[]", '{"type":"cancel","run_id":"run_1"}', '{"type":"run.resume","run_id":"run_1"}']) {
      expect(parseRunOffer(text)).toBeNull();
    }
    expect(parseRunOffer('{"type":"run.resume","run_id":"run_1","last_event_seq":-1,"lease_version":0}')).toBeNull();
    expect(parseRunOffer('{"type":"run.resume","run_id":"run_1","last_event_seq":1,"lease_version":0,"extra":true}')).toBeNull();
    expect(parseRunOffer('{"type":"run.resume","run_id":"run_1","last_event_seq":1,"lease_version":0,"trace":{"traceparent":5}}')).toBeNull();
    const offer = { type: "run.resume", run_id: "run_1", last_event_seq: 1, lease_version: 2 };
    const handover = { context: "{}", decided: [{ approval_id: "apr_1", status: "allowed" }], grant: null };
    expect(parseRunOffer(JSON.stringify({ ...offer, handover }))).not.toBeNull();
    for (const bad of [
      { ...handover, decided: [] },
      { ...handover, decided: [{ approval_id: "apr_1", status: "pending" }] },
      { ...handover, context: 5 },
      { ...handover, context: "x".repeat(HANDOVER_CONTEXT_MAX_LENGTH + 1) },
      { ...handover, grant: { tool: "write_file" } },
      { ...handover, extra: true },
    ]) {
      expect(parseRunOffer(JSON.stringify({ ...offer, handover: bad }))).toBeNull();
    }
    expect(parseRunOffer(JSON.stringify({ ...offer, start: { admission_awaited: false, context: { id: "run_1" } } }))).not.toBeNull();
    for (const bad of [
      { admission_awaited: false, context: "{}" },
      { admission_awaited: false, context: [] },
      { context: {} },
      { admission_awaited: 1, context: {} },
    ]) {
      expect(parseRunOffer(JSON.stringify({ ...offer, start: bad }))).toBeNull();
    }
  });
});

describe("offerDecision and its answer", () => {
  const record = {
    runId: "run_9",
    lastEventSeq: 12,
    decision: "allow_task" as const,
    decidedBy: "usr_1",
    tool: "write_file",
    effects: ["write"],
    approvals: [
      { id: "apr_1", toolCallId: "call_1" },
      { id: "apr_2", toolCallId: "call_2" },
    ],
    editedArguments: { path: "b.txt" },
    grantId: "grant_1",
    auditEntryId: "aud_1",
  };
  const replyTo = apiDecisionReplyChannel(prefix, "api_1");
  const offer = {
    runId: "run_9",
    generation: { lastEventSeq: 12, leaseVersion: 5 },
    handover: { context: JSON.stringify({ id: "run_9" }), decided: [{ approvalId: "apr_1", status: "allowed" as const }], grant: null },
    decision: { record, requestId: "dec_1", replyTo },
  };

  it("goes to the worker's decision channel only, and is read back as an offer with its decision", async () => {
    const decisions = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
    const heard: string[] = [];
    decisions.on("message", (_channel: string, text: string) => heard.push(text));
    await decisions.subscribe(workerDecisionChannel(prefix, "worker-a"));
    try {
      received.length = 0;
      expect(await offerDecision(connection, prefix, "worker-a", offer)).toBe(true);
      // Nobody listens for decisions of a worker of an earlier release: the API commits them itself.
      expect(await offerDecision(connection, prefix, "worker-earlier", offer)).toBe(false);
      await waitUntil("the decision heard", () => (heard.length > 0 ? true : undefined));
      expect(received).toEqual([]);
      expect(parseDecisionOffer(heard[0]!)).toEqual({
        runId: "run_9",
        generation: offer.generation,
        handover: offer.handover,
        decision: { record, requestId: "dec_1", replyTo: replyTo },
      });
      // A plain offer's reader does not take it for an offer.
      expect(parseRunOffer(heard[0]!)).toBeNull();
    } finally {
      await decisions.quit();
    }
  });

  it("is refused, on either side, when its decision is of another run or not a decision at all", async () => {
    await expect(
      offerDecision(connection, prefix, "worker-a", { ...offer, decision: { ...offer.decision, record: { ...record, approvals: [] } } }),
    ).rejects.toThrow(/decision offer/);
    const message = (decision: unknown) =>
      JSON.stringify({
        type: "run.decide",
        request_id: "dec_1",
        reply_to: "r",
        run_id: "run_9",
        last_event_seq: 1,
        lease_version: 1,
        handover: { context: "{}", decided: [{ approval_id: "apr_1", status: "allowed" }], grant: null },
        decision,
      });
    expect(parseDecisionOffer(message(record))).not.toBeNull();
    expect(parseDecisionOffer(message({ ...record, runId: "run_other" }))).toBeNull();
    expect(parseDecisionOffer(message({ ...record, decision: "maybe" }))).toBeNull();
    expect(parseDecisionOffer(message({ ...record, extra: true }))).toBeNull();
    expect(parseDecisionOffer("not json")).toBeNull();
  });

  it("is answered on the instance's reply channel with what became of it", async () => {
    const replies = createRedis({ url: TEST_REDIS_URL, maxRetriesPerRequest: null });
    const heard: string[] = [];
    replies.on("message", (_channel: string, text: string) => heard.push(text));
    await replies.subscribe(replyTo);
    try {
      await replyToDecision(connection, replyTo, "dec_1", { kind: "committed", approvalsDecided: 2, status: RunStatus.running });
      await replyToDecision(connection, replyTo, "dec_2", { kind: "refused" });
      await waitUntil("both answers heard", () => (heard.length === 2 ? true : undefined));
      expect(heard.map((text) => parseDecisionReply(text))).toEqual([
        { requestId: "dec_1", outcome: { kind: "committed", approvalsDecided: 2, status: "running" } },
        { requestId: "dec_2", outcome: { kind: "refused" } },
      ]);
      expect(parseDecisionReply(JSON.stringify({ request_id: "dec_3", outcome: "committed" }))).toBeNull();
      expect(parseDecisionReply(JSON.stringify({ request_id: "dec_3", outcome: "committed", approvals_decided: 1, status: "sleeping" }))).toBeNull();
    } finally {
      await replies.quit();
    }
  });
});
