import type { RunOffer } from "@agentq/queue";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { OfferedRuns, PREVIOUS_EXECUTION_WAIT_MS } from "./offered-runs.ts";

/** A worker's slots as OfferedRuns sees them: BullMQ's jobs in progress, and executions settled by hand. */
function harness(options: { concurrency: number; jobsInProgress: number; maxWaitMs?: number }) {
  const state = { jobsInProgress: options.jobsInProgress, accepting: true, jobConcurrency: options.concurrency };
  const started: string[] = [];
  const enqueued: string[] = [];
  const finishers = new Map<string, () => void>();
  const offered = new OfferedRuns({
    concurrency: options.concurrency,
    jobsInProgress: () => state.jobsInProgress,
    accepting: () => state.accepting,
    execute: (offer) => {
      started.push(offer.runId);
      return new Promise<void>((resolve) => finishers.set(offer.runId, resolve));
    },
    enqueue: async (offer) => {
      enqueued.push(offer.runId);
    },
    setJobConcurrency: (slots) => {
      state.jobConcurrency = slots;
    },
    maxWaitMs: options.maxWaitMs,
    logger: pino({ level: "silent" }),
  });
  /** A BullMQ job ended: its slot is free. */
  const jobEnded = () => {
    state.jobsInProgress -= 1;
    offered.slotFreed();
  };
  /** An offered run's execution ended; resolves once the class has reacted to it. */
  const finish = async (runId: string) => {
    finishers.get(runId)!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { offered, state, started, enqueued, jobEnded, finish };
}

const generation = { lastEventSeq: 9, leaseVersion: 4 };
const handedOver = (runId: string): RunOffer => ({ runId, generation, handover: { context: "{}", decided: [], grant: null } });
const plain = (runId: string): RunOffer => ({ runId, generation });
/** A decision left to this worker (queue run-decision-offer.ts); `enqueue` is where the worker declines it. */
const decided = (runId: string): RunOffer => ({
  ...handedOver(runId),
  decision: {
    record: {
      runId,
      lastEventSeq: 9,
      decision: "allow_task",
      decidedBy: "usr_1",
      tool: "write_file",
      effects: ["write"],
      approvals: [{ id: "apr_1", toolCallId: "call_1" }],
      grantId: "grant_1",
      auditEntryId: "aud_1",
    },
    requestId: "dec_1",
    replyTo: "agentq:api:api_1:decided",
  },
});

describe("runs offered to a worker", () => {
  it("declines a decision at once when no slot is free: it never waits for one", () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 3 });
    worker.offered.receive(decided("run_a"));
    expect(worker.started).toEqual([]);
    expect(worker.enqueued).toEqual(["run_a"]);
    expect(worker.offered.waitingLeases()).toEqual([]);
  });

  it("executes a run offered again once its execution here has ended: a decision waits for it a moment, then is declined", async () => {
    const worker = harness({ concurrency: 4, jobsInProgress: 0 });
    worker.offered.receive(handedOver("run_a"));
    // The execution that parked the run ends a moment after its decision arrived: the decision runs then.
    worker.offered.receive(decided("run_a"));
    expect(worker.started).toEqual(["run_a"]);
    await worker.finish("run_a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(worker.started).toEqual(["run_a", "run_a"]);
    expect(worker.enqueued).toEqual([]);
    // Another decision of the run, while that one goes on: declined once PREVIOUS_EXECUTION_WAIT_MS is over.
    worker.offered.receive(decided("run_a"));
    await new Promise((resolve) => setTimeout(resolve, PREVIOUS_EXECUTION_WAIT_MS + 50));
    expect(worker.enqueued).toEqual(["run_a"]);
    expect(worker.started).toEqual(["run_a", "run_a"]);
    // A plain handover waits for the execution in progress however long it takes.
    worker.offered.receive(handedOver("run_a"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(worker.started).toEqual(["run_a", "run_a"]);
    await worker.finish("run_a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(worker.started).toEqual(["run_a", "run_a", "run_a"]);
  });

  it("takes an offer at once while a slot is free, lending the slot from BullMQ", () => {
    const worker = harness({ concurrency: 4, jobsInProgress: 1 });
    worker.offered.receive(handedOver("run_a"));
    expect(worker.started).toEqual(["run_a"]);
    expect(worker.state.jobConcurrency).toBe(3);
  });

  it("keeps a handed-over run waiting while every slot is busy, and starts it in the slot of the next job that ends", () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 3 });
    worker.offered.receive(handedOver("run_a"));
    expect(worker.started).toEqual([]);
    expect(worker.enqueued).toEqual([]);
    expect(worker.offered.waitingLeases()).toEqual([{ runId: "run_a", leaseVersion: 4 }]);
    worker.jobEnded();
    expect(worker.started).toEqual(["run_a"]);
    expect(worker.offered.waitingLeases()).toEqual([]);
    // The slot is lent from BullMQ, which so does not fetch a job into it.
    expect(worker.state.jobConcurrency).toBe(2);
  });

  it("starts waiting runs in the order they came as offered executions end", async () => {
    const worker = harness({ concurrency: 4, jobsInProgress: 3 });
    worker.offered.receive(handedOver("run_a"));
    for (const runId of ["run_b", "run_c"]) worker.offered.receive(handedOver(runId));
    expect(worker.started).toEqual(["run_a"]);
    expect(worker.offered.waitingLeases().map((lease) => lease.runId)).toEqual(["run_b", "run_c"]);
    await worker.finish("run_a");
    expect(worker.started).toEqual(["run_a", "run_b"]);
    await worker.finish("run_b");
    expect(worker.started).toEqual(["run_a", "run_b", "run_c"]);
  });

  it("sends to the queue a plain offer with no slot free, and a handed-over run past those that could take the next offered slot", () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 3 });
    worker.offered.receive(plain("run_plain"));
    for (const runId of ["run_a", "run_b", "run_c"]) worker.offered.receive(handedOver(runId));
    // Offered runs hold at most two of the three slots (BullMQ keeps one): two may wait.
    expect(worker.offered.waitingLeases().map((lease) => lease.runId)).toEqual(["run_a", "run_b"]);
    expect(worker.enqueued).toEqual(["run_plain", "run_c"]);
  });

  it("keeps a handed-over run waiting while offered new runs hold the slots, and starts it before the next new run", async () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 0 });
    for (const runId of ["new_a", "new_b", "new_c"]) worker.offered.receive(plain(runId));
    // Two slots taken by offered runs (BullMQ keeps one), the third new run sent to the queue.
    expect(worker.started).toEqual(["new_a", "new_b"]);
    expect(worker.enqueued).toEqual(["new_c"]);
    worker.offered.receive(handedOver("decided"));
    expect(worker.offered.waitingLeases().map((lease) => lease.runId)).toEqual(["decided"]);
    // A new run offered while the decided one waits goes to the queue, behind it.
    worker.offered.receive(plain("new_d"));
    expect(worker.enqueued).toEqual(["new_c", "new_d"]);
    await worker.finish("new_a");
    expect(worker.started).toEqual(["new_a", "new_b", "decided"]);
  });

  it("sends a run that waited too long to the queue, where a worker with a free slot takes it", async () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 3, maxWaitMs: 20 });
    worker.offered.receive(handedOver("run_a"));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(worker.enqueued).toEqual(["run_a"]);
    expect(worker.offered.waitingLeases()).toEqual([]);
    worker.jobEnded();
    expect(worker.started).toEqual([]);
  });

  it("never keeps a run waiting in a worker of one slot, whose slot is BullMQ's", () => {
    const worker = harness({ concurrency: 1, jobsInProgress: 0 });
    worker.offered.receive(handedOver("run_a"));
    expect(worker.enqueued).toEqual(["run_a"]);
    expect(worker.started).toEqual([]);
  });

  it("forgets a waiting run whose lease, at the version it was handed, was lost", () => {
    const worker = harness({ concurrency: 3, jobsInProgress: 3 });
    for (const runId of ["run_a", "run_b"]) worker.offered.receive(handedOver(runId));
    worker.offered.dropLost([
      { runId: "run_a", leaseVersion: 4 },
      { runId: "run_b", leaseVersion: 3 },
    ]);
    expect(worker.offered.waitingLeases()).toEqual([{ runId: "run_b", leaseVersion: 4 }]);
    worker.jobEnded();
    expect(worker.started).toEqual(["run_b"]);
    expect(worker.enqueued).toEqual([]);
  });

  it("sends its waiting runs to the queue when it stops, or when it no longer accepts runs as a slot frees", async () => {
    const stopping = harness({ concurrency: 3, jobsInProgress: 3 });
    for (const runId of ["run_a", "run_b"]) stopping.offered.receive(handedOver(runId));
    await stopping.offered.handBackWaiting();
    expect(stopping.enqueued).toEqual(["run_a", "run_b"]);
    expect(stopping.offered.waitingLeases()).toEqual([]);

    const paused = harness({ concurrency: 3, jobsInProgress: 3 });
    paused.offered.receive(handedOver("run_a"));
    paused.state.accepting = false;
    paused.jobEnded();
    expect(paused.started).toEqual([]);
    expect(paused.enqueued).toEqual(["run_a"]);
  });
});
