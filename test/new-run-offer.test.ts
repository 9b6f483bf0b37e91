import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateId } from "@agentq/core";
import { createRedis, offerRun } from "@agentq/queue";
import { sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import { selectNewRunContexts, takeRunLease } from "../packages/core/src/store/statements/run-lease-statements.ts";
import { scenarioInput } from "../packages/core/src/testing/scenario-responder.ts";
import { jobsAddedFor } from "./faults-helpers.ts";
import { asOnlyWorkerSeen, listeningWorker } from "./support/offer-test-helpers.ts";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

// A new run that admission lets through is offered to a live worker over the worker's own channel
// (queue run-offer.ts) rather than added to the queue; the queue stays the way when no worker is known,
// the one offered does not listen, or it has no free slot, and an offer that is lost with its worker
// leaves the run queued in Postgres for the reconciler. These tests tell the ways apart by the queue's
// own event stream, where every job BullMQ added is (`run-<run id>-<generation>`).

/** Creates a run that answers `text` and waits for it to complete. */
async function completedRun(stack: TestStack, text: string, options: { holdUntil?: string } = {}): Promise<string> {
  const runId = await stack.run(await stack.createChat(), { input: scenarioInput([{ text, ...options }]) });
  expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: text });
  return runId;
}

/**
 * Whether the run's first commit started it, with no take (core runs/new-run-start.ts): that commit set
 * its started_at to its own clock, which its run.started carries; a take sets it earlier, to the
 * database's (microseconds, where the commit's clock has milliseconds).
 */
async function startedByItsFirstCommit(stack: TestStack, runId: string): Promise<boolean> {
  const [row] = await stack.prisma.$queryRawUnsafe<{ same: boolean }[]>(
    "SELECT r.started_at = e.created_at AS same FROM runs AS r JOIN run_events AS e ON e.run_id = r.id AND e.type = 'run.started' WHERE r.id = $1",
    runId,
  );
  if (!row) throw new Error(`run ${runId} has no run.started`);
  return row.same;
}

/**
 * Settles once a new run was offered to the worker, not enqueued: the API reads the live workers every
 * 100 ms here (test-api.ts), so a worker just started is offered runs once its first beat was read.
 */
async function untilOffered(stack: TestStack): Promise<void> {
  await waitUntil(
    "a run offered to the worker",
    async () => ((await jobsAddedFor(stack, await completedRun(stack, "offered"))).length === 0 ? true : undefined),
    5000,
  );
}

describe("a new run offered to a worker", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ worker: { concurrency: 3 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is executed by the live worker without a queue job, started with its context by its first commit (no take)", async () => {
    await untilOffered(stack);
    // From then on, every run: these two at once, with a tool call each.
    const chats = await Promise.all([stack.createChat(), stack.createChat()]);
    const runIds = await Promise.all(
      chats.map((chatId) => stack.run(chatId, { input: scenarioInput([{ tool: "list_files", args: {} }, { text: "listed" }]) })),
    );
    for (const runId of runIds) {
      expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "listed", rounds: 2, tool_calls: 1 });
      expectContiguous(await stack.events(runId));
      expect(await jobsAddedFor(stack, runId)).toEqual([]);
      expect(await startedByItsFirstCommit(stack, runId)).toBe(true);
    }
  });

  it("a run the worker admits as another of its user's ends is started by that worker without a queue job or a take", async () => {
    await untilOffered(stack);
    // One active run at most: the second waits for admission until the first ends, and the worker's
    // round at that end admits it (the API's round at its creation found no room).
    const user = await stack.createUser(`one-at-a-time-${generateId("n").slice(-6)}`);
    expect((await stack.request("PATCH", `/api/users/${user.id}`, { body: { max_active_runs: 1 } })).status).toBe(200);
    const [firstChat, secondChat] = await Promise.all([stack.createChat({ token: user.token }), stack.createChat({ token: user.token })]);
    const first = await stack.run(firstChat, { input: scenarioInput([{ text: "first", holdUntil: "first-run" }]) }, user.token);
    await stack.waitForEvent(first, (event) => event.type === "run.started", 20_000, user.token);
    const second = await stack.run(secondChat, { input: scenarioInput([{ text: "second" }]) }, user.token);
    expect(await stack.prisma.run.findUniqueOrThrow({ where: { id: second } })).toMatchObject({ status: "queued", dispatchedAt: null });
    stack.provider.release("first-run");
    for (const runId of [first, second]) expect(await stack.waitForRun(runId, undefined, 20_000, user.token)).toMatchObject({ status: "completed" });
    expect(await jobsAddedFor(stack, second)).toEqual([]);
    expect(await startedByItsFirstCommit(stack, second)).toBe(true);
  });

  it("goes through the queue when the worker it is offered to has stopped", async () => {
    // A worker that died without removing its presence row, seen a moment ago with every slot free,
    // is the only worker the API knows: nobody hears the offer, and the run is enqueued for the
    // live worker, which still takes the queue's jobs.
    await asOnlyWorkerSeen(stack, { id: "worker-gone", concurrency: 1_000_000, leaseMs: 3000 }, async () => {
      const runId = await completedRun(stack, "through the queue");
      expect(await jobsAddedFor(stack, runId)).toHaveLength(1);
      // Its job's take started it.
      expect(await startedByItsFirstCommit(stack, runId)).toBe(false);
      // Not offered to it again: the next run is enqueued at once too.
      const next = await completedRun(stack, "again");
      expect(await jobsAddedFor(stack, next)).toHaveLength(1);
    });
  });

  it("goes through the queue when its worker has no free slot, and starts when one frees", async () => {
    await untilOffered(stack);
    // Three slots: two for offered runs (BullMQ keeps one), both held by runs whose model answers only when released.
    const held = await Promise.all(
      ["slot-a", "slot-b"].map(async (latch) => stack.run(await stack.createChat(), { input: scenarioInput([{ text: "held", holdUntil: latch }]) })),
    );
    for (const runId of held) await stack.waitForEvent(runId, (event) => event.type === "run.started");
    for (const runId of held) expect(await jobsAddedFor(stack, runId)).toEqual([]);
    // The worker hands the third to the queue, where BullMQ's slot takes it.
    const third = await completedRun(stack, "queued by the worker");
    expect(await jobsAddedFor(stack, third)).toHaveLength(1);
    for (const latch of ["slot-a", "slot-b"]) stack.provider.release(latch);
    for (const runId of held) expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "held" });
  });

  it("is executed by another worker when the one it was offered to never takes it (the reconciler finds it queued)", async () => {
    // A worker whose process hears offers but takes nothing (it froze, or died just after hearing).
    const silent = await listeningWorker(stack, "worker-silent");
    try {
      let runId = "";
      await asOnlyWorkerSeen(stack, { id: "worker-silent", concurrency: 10, leaseMs: 3000 }, async () => {
        runId = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "recovered" }]) });
        await waitUntil("the offer heard", () => (silent.offers.some((offer) => offer.runId === runId) ? true : undefined), 5000);
        expect(silent.offers.find((offer) => offer.runId === runId)?.handover).toBeUndefined();
        // Queued and admitted, held by nobody: the live worker's reconciler enqueues it once its grace has passed.
        expect(await stack.waitForRun(runId)).toMatchObject({ status: "completed", output: "recovered" });
      });
      expect(await jobsAddedFor(stack, runId)).toHaveLength(1);
      const events = await stack.events(runId);
      expectContiguous(events);
      expect(events.filter((event) => event.type === "run.started")).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it("a new run offered with its context after another worker started it is left to that worker: nothing is written", async () => {
    // The only worker seen listens on the plain channel alone, as a worker of the earlier release does:
    // the run is offered there without its context, and taken by nobody.
    const silent = await listeningWorker(stack, "worker-earlier");
    const redis = createRedis({ url: stack.workerConfig.redisUrl, maxRetriesPerRequest: null });
    try {
      let runId = "";
      let context = "";
      await asOnlyWorkerSeen(stack, { id: "worker-earlier", concurrency: 10, leaseMs: 3000 }, async () => {
        runId = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "never" }]) });
        await waitUntil("the offer heard", () => (silent.offers.some((offer) => offer.runId === runId) ? true : undefined), 5000);
        expect(silent.offers.find((offer) => offer.runId === runId)?.start).toBeUndefined();
        const pool = sqlPoolOf(stack.prisma);
        const [read] = await selectNewRunContexts(pool, [runId]);
        context = read!.context;
        // A queue job's take by another worker comes first.
        expect(await takeRunLease(pool, { runId, owner: "worker-elsewhere", leaseSeconds: 60 })).toMatchObject({ lease_version: 1 });
      });
      const live = stack.workers[0]!.workerId;
      const stale = { runId, generation: { lastEventSeq: 1, leaseVersion: 0 }, start: { context, admissionAwaited: false } };
      expect(await offerRun(redis, stack.workerConfig.queuePrefix, live, stale)).toBe(true);
      // A worker reads its offers in order: once a run offered after it has completed, this one's
      // first commit has been refused (it comes first in the worker's group commits).
      await untilOffered(stack);
      expect(await stack.prisma.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({
        status: "running",
        leaseOwner: "worker-elsewhere",
        leaseVersion: 1,
      });
      expect((await stack.events(runId)).map((event) => event.type)).toEqual(["run.queued"]);
    } finally {
      await redis.quit();
      await silent.close();
    }
  });
});
