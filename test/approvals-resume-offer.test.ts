import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import { RunStatus } from "../packages/core/src/store/generated/enums.ts";
import { commitRunStatement, emptyStatementChange } from "../packages/core/src/store/run-statement.ts";
import { selectRunLeaseState } from "../packages/core/src/store/statements/run-lease-statements.ts";
import { scenarioInput } from "../packages/core/src/testing/scenario-responder.ts";
import { decide, parkedRun, waitForFinished } from "./support/approval-test-helpers.ts";
import { jobsAddedFor } from "./faults-helpers.ts";
import { asOnlyWorkerSeen, listeningWorker } from "./support/offer-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

// A decided approval's run is offered to a live worker over its own channel (queue run-offer.ts)
// instead of going through the queue's fetch loop; the queue stays the way when the offer cannot be
// taken. These tests tell the two apart by the queue's own event stream: every job BullMQ added is
// there, by its id (`run-<run id>-<generation>`). The decision's commit hands the run over: leased to
// the worker it is offered to, with its context in the offer (core runs/resume-handover.ts).

/** The run's lease as Postgres has it. */
interface LeaseRow {
  status: string;
  lease_owner: string | null;
  lease_ms_left: number | null;
  lease_version: number;
}

async function leaseOf(stack: TestStack, runId: string): Promise<LeaseRow> {
  const [row] = await stack.prisma.$queryRaw<LeaseRow[]>`
    SELECT status::text AS status, lease_owner, (extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS lease_ms_left, lease_version
    FROM runs WHERE id = ${runId}`;
  return row!;
}

/** When the run's lease runs out, in seconds since the epoch: a renewal moves it on. */
async function leaseExpiry(stack: TestStack, runId: string): Promise<number> {
  return ((await selectRunLeaseState(sqlPoolOf(stack.prisma), runId))?.lease_expires_at?.getTime() ?? 0) / 1000;
}

/** Settles once the run's lease was renewed past the expiry it has now: its worker holds it. */
async function leaseRenewed(stack: TestStack, runId: string): Promise<void> {
  const handedExpiry = await leaseExpiry(stack, runId);
  await expect.poll(async () => (await leaseExpiry(stack, runId)) - handedExpiry, { timeout: 5_000 }).toBeGreaterThan(0.5);
}

/** The write every test here parks on. */
const WRITE = { tool: "write_file", args: { path: "out.txt", content: "approved" } };

async function expectWritten(stack: TestStack, runId: string): Promise<void> {
  expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
  const events = await stack.events(runId);
  expect(events.filter((event) => event.type === "run.resumed")).toHaveLength(1);
  expect(events.find((event) => event.type === "tool.completed" && event.data.tool === "write_file")?.data.ok).toBe(true);
}

describe("a decided approval's run offered to a worker", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ worker: { concurrency: 2 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("resumes on the live worker without a queue job", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const creationJobs = await jobsAddedFor(stack, runId);
    const decision = await decide(stack, approvalId, "allow_task");
    // Left to the worker, whose first commit of the run records the decision and resumes the run in one
    // statement (core runs/approval-decision-record.ts): running by the time the 202 comes.
    expect(decision.status).toBe(202);
    expect(decision.body).toEqual({ run_id: runId, status: "running" });
    await expectWritten(stack, runId);
    expect((await stack.events(runId)).find((event) => event.type === "run.resumed")?.data).toEqual({ reason: "approval" });
    // No job added: the resume never went through the queue.
    expect(await jobsAddedFor(stack, runId)).toEqual(creationJobs);
  });

  it("goes to the queue when the worker it was offered to has stopped", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const creationJobs = (await jobsAddedFor(stack, runId)).length;
    // A worker that died without removing its presence row, seen a moment ago with every slot free.
    await asOnlyWorkerSeen(stack, { id: "worker-gone", concurrency: 1_000_000, leaseMs: 3000 }, async () => {
      expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
      // Nobody listened to the offer: the API unleased the run before it enqueued it.
      expect((await leaseOf(stack, runId)).lease_owner).not.toBe("worker-gone");
      await expectWritten(stack, runId);
    });
    expect(await jobsAddedFor(stack, runId)).toHaveLength(creationJobs + 1);
  });

  it("hands the run over leased to the worker, for as long as that worker's leases last, with its context and the decision", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    // A worker whose process listens but never takes what it is offered (it froze).
    const silent = await listeningWorker(stack, "worker-silent");
    try {
      await asOnlyWorkerSeen(stack, { id: "worker-silent", concurrency: 10, leaseMs: 1500 }, async () => {
        const decision = await decide(stack, approvalId, "allow_task", { arguments: { path: "out.txt", content: "edited" } });
        expect(decision.body).toEqual({ run_id: runId, status: "queued" });
        // Leased to the silent worker by the decision's own commit, for that worker's lease length.
        const lease = await leaseOf(stack, runId);
        expect(lease).toMatchObject({ status: "queued", lease_owner: "worker-silent" });
        expect(lease.lease_ms_left).toBeGreaterThan(0);
        expect(lease.lease_ms_left).toBeLessThanOrEqual(1500);
        await expect.poll(() => silent.offers.length).toBe(1);
        const handover = silent.offers[0]!.handover!;
        expect(JSON.parse(handover.context)).toMatchObject({ id: runId, status: "awaiting_approval" });
        expect(handover.decided).toEqual([{ approvalId, status: "allowed", editedArguments: { path: "out.txt", content: "edited" } }]);
        expect(handover.grant).toEqual({ tool: "write_file", effects: ["write"] });
        // Nobody takes it: once the lease has run out, the live worker's reconciler hands it on.
        expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
      });
    } finally {
      await silent.close();
    }
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "run.resumed").map((event) => event.data)).toEqual([{ reason: "approval" }]);
    expect(events.find((event) => event.type === "tool.completed" && event.data.tool === "write_file")?.data.ok).toBe(true);
    const started = events.find((event) => event.type === "tool.started" && event.data.tool === "write_file");
    expect(started?.data.arguments).toEqual({ path: "out.txt", content: "edited" });
  });

  it("a cancel of a handed-over run that its worker has not started yet takes the run from that worker", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const silent = await listeningWorker(stack, "worker-silent");
    try {
      await asOnlyWorkerSeen(stack, { id: "worker-silent", concurrency: 10, leaseMs: 60_000 }, async () => {
        await decide(stack, approvalId, "allow_task");
        await expect.poll(() => silent.offers.length).toBe(1);
        const handed = silent.offers[0]!.generation;
        expect(await leaseOf(stack, runId)).toMatchObject({ status: "queued", lease_owner: "worker-silent", lease_version: handed.leaseVersion });
        expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).body.status).toBe("cancelled");
        // The worker wakes up and makes its first commit with the lease it was handed: refused.
        const firstCommit = emptyStatementChange(runId, handed.leaseVersion);
        firstCommit.status = RunStatus.running;
        firstCommit.events.push({ type: "run.resumed", data: { reason: "approval" } });
        expect(await commitRunStatement(sqlPoolOf(stack.prisma), firstCommit, new Date())).toBeNull();
        expect((await leaseOf(stack, runId)).status).toBe("cancelled");
      });
    } finally {
      await silent.close();
    }
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "run.cancelled")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("run.cancelled");
    expect(events.some((event) => event.type === "run.resumed" || (event.type === "tool.started" && event.data.tool === "write_file"))).toBe(false);
  });

  it("offers the run without a handover to a worker of an earlier release, which would not read one", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const earlier = await listeningWorker(stack, "worker-earlier");
    try {
      // Its presence row has no lease length: it was written by a release before handovers.
      await asOnlyWorkerSeen(stack, { id: "worker-earlier", concurrency: 10, leaseMs: null }, async () => {
        expect((await decide(stack, approvalId, "allow_task")).body).toEqual({ run_id: runId, status: "queued" });
        expect(await leaseOf(stack, runId)).toMatchObject({ status: "queued", lease_owner: null });
        await expect.poll(() => earlier.offers.length).toBe(1);
        expect(earlier.offers[0]).toEqual({ runId, generation: expect.any(Object) });
        // It never takes it either: the reconciler enqueues the queued run once its grace has passed.
        await expectWritten(stack, runId);
      });
    } finally {
      await earlier.close();
    }
  });

  it("waits for a slot of its worker, leased and renewed, and takes it before the queue's new runs", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE, { answer: { text: "finished", holdUntil: "after-write" } });
    const creationJobs = await jobsAddedFor(stack, runId);
    // Both of the worker's slots held by runs whose model answers only when released.
    const held = await Promise.all(
      ["hold-a", "hold-b"].map(async (latch) => stack.run(await stack.createChat(), { input: scenarioInput([{ text: "held", holdUntil: latch }]) })),
    );
    for (const heldRunId of held) await stack.waitForEvent(heldRunId, (event) => event.type === "run.started");
    // Offered to this worker: the only one seen.
    const workerId = stack.workers[0]!.workerId;
    expect((await stack.prisma.worker.findMany()).map((worker) => worker.id)).toEqual([workerId]);
    const parkedVersion = (await leaseOf(stack, runId)).lease_version;
    expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
    expect(await leaseOf(stack, runId)).toMatchObject({ status: "queued", lease_owner: workerId, lease_version: parkedVersion + 1 });
    // The worker keeps it waiting, and renews its lease with its running runs' (every second here,
    // a 3-s lease): the expiry moves past the one the decision gave.
    await leaseRenewed(stack, runId);
    // A new run created meanwhile waits in the queue behind it.
    const later = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "later" }]) });
    expect(await leaseOf(stack, runId)).toMatchObject({ status: "queued", lease_owner: workerId, lease_version: parkedVersion + 1 });
    // Never sent to the queue: no job added since its creation.
    expect(await jobsAddedFor(stack, runId)).toEqual(creationJobs);
    // The slot to free: an offered run's, when one holds a slot. (Of two slots, offered runs hold at
    // most one, BullMQ keeps the other: a job's end there lets BullMQ fetch before a waiting run could
    // take it, worker offered-runs.ts.) Both are jobs when the API had not read the worker's beat yet.
    const heldJobs = await Promise.all(held.map((heldRunId) => jobsAddedFor(stack, heldRunId)));
    const [first, second] = heldJobs[0]!.length === 0 ? ["hold-a", "hold-b"] : ["hold-b", "hold-a"];
    stack.provider.release(first!);
    // The slot that freed went to the decided run, which holds it (its answer's request is held): the
    // new run has not started, the other slot being held too.
    await stack.waitForEvent(runId, (event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect((await stack.events(later)).map((event) => event.type)).not.toContain("run.started");
    stack.provider.release("after-write");
    await expectWritten(stack, runId);
    stack.provider.release(second!);
    for (const runIdToFinish of [...held, later]) expect(await waitForFinished(stack, runIdToFinish)).toMatchObject({ status: "completed" });
  });
});

describe("an offered run when its worker stops", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is handed back to the queue at the shutdown's deadline and finished by another worker", async () => {
    const first = await stack.startWorker({ shutdownGraceMs: 300 });
    const { runId, approvalId } = await parkedRun(stack, WRITE, { answer: { text: "finished", holdUntil: "after-write" } });
    const creationJobs = (await jobsAddedFor(stack, runId)).length;
    expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
    // Taken by the offer (the only worker): the write ran, the answer's request is held.
    await stack.waitForEvent(runId, (event) => event.type === "tool.completed" && event.data.tool === "write_file");
    expect(first.activeRunIds()).toEqual([runId]);
    await first.close();
    // With no worker running (so no reconciler's sweep), the run is in the queue: the hand-back's job.
    expect(await jobsAddedFor(stack, runId)).toHaveLength(creationJobs + 1);
    await stack.startWorker();
    stack.provider.release("after-write");
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    // Once by the offer, once from the queue after the hand-back; the write ran once.
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "run.resumed")).toHaveLength(2);
    expect(events.filter((event) => event.type === "tool.completed" && event.data.tool === "write_file")).toHaveLength(1);
  });
});

describe("a run waiting for a slot when its worker stops", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ workers: 0 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("goes to the queue, unleased, as its worker begins to stop", async () => {
    const first = await stack.startWorker({ concurrency: 2, shutdownGraceMs: 300 });
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const creationJobs = (await jobsAddedFor(stack, runId)).length;
    const held = await Promise.all(
      ["stop-a", "stop-b"].map(async (latch) => stack.run(await stack.createChat(), { input: scenarioInput([{ text: "held", holdUntil: latch }]) })),
    );
    for (const heldRunId of held) await stack.waitForEvent(heldRunId, (event) => event.type === "run.started");
    const parkedVersion = (await leaseOf(stack, runId)).lease_version;
    expect((await decide(stack, approvalId, "allow_task")).status).toBe(202);
    expect(await leaseOf(stack, runId)).toMatchObject({ status: "queued", lease_owner: first.workerId, lease_version: parkedVersion + 1 });
    // Waiting in the worker, which renews its lease.
    await leaseRenewed(stack, runId);
    await first.close();
    // Unleased (the version bumped past the handover's) and enqueued by the stopping worker.
    expect(await leaseOf(stack, runId)).toEqual({ status: "queued", lease_owner: null, lease_ms_left: null, lease_version: parkedVersion + 2 });
    expect(await jobsAddedFor(stack, runId)).toHaveLength(creationJobs + 1);
    await stack.startWorker();
    for (const latch of ["stop-a", "stop-b"]) stack.provider.release(latch);
    await expectWritten(stack, runId);
  });
});
