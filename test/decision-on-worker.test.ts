import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type DecisionOffer, parseDecisionOffer, replyToDecision, workerDecisionChannel } from "@agentq/queue";
import { stageApprovalDecision } from "../packages/core/src/runs/approval-decision-record.ts";
import { sqlPoolOf } from "../packages/core/src/store/create-prisma-client.ts";
import { RunStatus } from "../packages/core/src/store/generated/enums.ts";
import { commitRunStatement, emptyStatementChange } from "../packages/core/src/store/run-statement.ts";
import type { SqlRunner } from "../packages/core/src/store/sql-pool.ts";
import { decide, parkedRun, waitForFinished } from "./support/approval-test-helpers.ts";
import { jobsAddedFor } from "./faults-helpers.ts";
import { scenarioInput } from "../packages/core/src/testing/scenario-responder.ts";
import { asOnlyWorkerSeen, listeningWorker } from "./support/offer-test-helpers.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

// The decision of a run's last pending approval is left to the worker the run is handed to (queue
// run-decision-offer.ts): the worker's first commit of the run records it, fenced by the run as the
// decision read it, and the worker answers the API. The fakes below stand for workers that hear the
// offer and then do not answer, lose their answer after committing, or find the run changed.

const WRITE = { tool: "write_file", args: { path: "out.txt", content: "approved" } };

/** How long the API waits for a worker's answer here (config decisionReplyWaitMs). */
const REPLY_WAIT_MS = 400;

/** A process listening on `workerId`'s decision channel, doing `onOffer` with each decision offer it hears. */
async function decisionListener(stack: TestStack, workerId: string, onOffer: (offer: DecisionOffer) => Promise<void> | void) {
  const subscriber = createRedis({ url: stack.workerConfig.redisUrl, maxRetriesPerRequest: null });
  const offers: DecisionOffer[] = [];
  const handled: Promise<void>[] = [];
  subscriber.on("message", (_channel: string, text: string) => {
    const offer = parseDecisionOffer(text);
    if (!offer) return;
    offers.push(offer);
    handled.push(Promise.resolve(onOffer(offer)));
  });
  await subscriber.subscribe(workerDecisionChannel(stack.workerConfig.queuePrefix, workerId));
  return {
    offers,
    close: async () => {
      await Promise.all(handled);
      await subscriber.quit();
    },
  };
}

/**
 * Runs `body` while `worker` (of 10 slots unless said) is the only worker seen and a fake of it listens
 * on its decision channel, doing `onOffer` with each decision offer it hears; `body` is given the offers
 * heard so far, and they are returned once the fake has handled them all.
 */
async function asOnlyDecisionWorker(
  stack: TestStack,
  worker: { id: string; concurrency?: number },
  onOffer: (offer: DecisionOffer) => Promise<void> | void,
  body: (offers: DecisionOffer[]) => Promise<void>,
): Promise<DecisionOffer[]> {
  const listener = await decisionListener(stack, worker.id, onOffer);
  try {
    await asOnlyWorkerSeen(stack, { id: worker.id, concurrency: worker.concurrency ?? 10, leaseMs: 1500 }, () => body(listener.offers));
  } finally {
    await listener.close();
  }
  return listener.offers;
}

/** What a worker's first commit of a decided run writes (core RunExecution with decisionOnFirstCommit), short of executing it. */
async function commitAsWorker(runner: SqlRunner, offer: DecisionOffer, owner: string) {
  const change = emptyStatementChange(offer.runId, offer.generation.leaseVersion);
  stageApprovalDecision(change, offer.decision.record);
  change.status = RunStatus.running;
  change.handTo = { owner, leaseSeconds: 1.5 };
  change.events.push({ type: "run.resumed", data: { reason: "approval" } });
  return commitRunStatement(runner, change, new Date());
}

async function auditEntriesOf(stack: TestStack, approvalId: string): Promise<number> {
  return stack.prisma.auditEntry.count({ where: { target: `approval:${approvalId}` } });
}

describe("a decision left to the worker the run is handed to", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ api: { decisionReplyWaitMs: REPLY_WAIT_MS } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("is recorded by the worker's first commit of the run, with the run's resumption, before the 202", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const parkedEvents = await stack.events(runId);
    const creationJobs = await jobsAddedFor(stack, runId);
    const decision = await decide(stack, approvalId, "allow_task");
    expect([decision.status, decision.body]).toEqual([202, { run_id: runId, status: "running" }]);
    expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    const events = (await stack.events(runId)).slice(parkedEvents.length);
    // One commit: the decision's event, then the resumption and the write's start, at one commit clock.
    expect(events.slice(0, 3).map((event) => event.type)).toEqual(["approval.decided", "run.resumed", "tool.started"]);
    expect(new Set(events.slice(0, 3).map((event) => event.at)).size).toBe(1);
    expect(events[0]!.data).toMatchObject({ approval_id: approvalId, decision: "allow_task", edited: false });
    expect(events.find((event) => event.type === "tool.completed" && event.data.tool === "write_file")?.data.ok).toBe(true);
    expect(await auditEntriesOf(stack, approvalId)).toBe(1);
    expect(await stack.prisma.grant.count({ where: { approvalId } })).toBe(1);
    expect(await jobsAddedFor(stack, runId)).toEqual(creationJobs);
  });

  it("is committed by the API when the worker hears it and never answers", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const parkedSeq = (await stack.events(runId)).at(-1)!.seq;
    await asOnlyDecisionWorker(
      stack,
      { id: "worker-mute" },
      () => undefined,
      async (offers) => {
        const started = performance.now();
        const decision = await decide(stack, approvalId, "allow_task");
        expect(performance.now() - started).toBeGreaterThanOrEqual(REPLY_WAIT_MS);
        // Committed by the API, handed over to that worker as before: queued, leased to it.
        expect([decision.status, decision.body]).toEqual([202, { run_id: runId, status: "queued" }]);
        expect(offers).toHaveLength(1);
        expect(offers[0]!.decision.record).toMatchObject({ runId, lastEventSeq: parkedSeq, decision: "allow_task", approvals: [{ id: approvalId }] });
        // Its lease runs out unused, and the live worker's reconciler hands the run on.
        expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
      },
    );
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "approval.decided")).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool.completed" && event.data.tool === "write_file").map((event) => event.data.ok)).toEqual([true]);
    expect(await auditEntriesOf(stack, approvalId)).toBe(1);
  });

  it("stands when the worker committed it and its answer was lost: the API finds the commit and answers 202", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    let committed: Awaited<ReturnType<typeof commitAsWorker>> = null;
    const commitAndLoseTheAnswer = async (offer: DecisionOffer) => {
      committed = await commitAsWorker(sqlPoolOf(stack.prisma), offer, "worker-lossy");
    };
    await asOnlyDecisionWorker(stack, { id: "worker-lossy" }, commitAndLoseTheAnswer, async () => {
      const decision = await decide(stack, approvalId, "allow_chat");
      expect(committed).not.toBeNull();
      expect([decision.status, decision.body]).toEqual([202, { run_id: runId, status: "running" }]);
      // That worker never goes on: once its lease is out, the live worker recovers the run, whose
      // approved call had not started, and runs it.
      expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
    });
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "approval.decided").map((event) => event.data.decision)).toEqual(["allow_chat"]);
    expect(events.filter((event) => event.type === "tool.completed" && event.data.tool === "write_file").map((event) => event.data.ok)).toEqual([true]);
    expect(await auditEntriesOf(stack, approvalId)).toBe(1);
    expect(await stack.prisma.grant.count({ where: { approvalId, scope: "chat" } })).toBe(1);
  });

  it("stands when the worker's commit lands after the API gave up waiting and before the API's own: the request finds its own decision", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    // The worker's commit, in a transaction held open past the API's wait and its look for the audit
    // entry (uncommitted, not seen), until the API's own commit of the decision waits for the run's row.
    const client = new pg.Client({ connectionString: stack.api.database.url });
    await client.connect();
    const commitLate = async (offer: DecisionOffer) => {
      await client.query("BEGIN");
      expect(await commitAsWorker(client, offer, "worker-slow")).not.toBeNull();
      // Watched from another connection: within the open transaction, pg_stat_activity stays as first read.
      await waitUntil("the API's own commit waiting for the run's row", async () => {
        const [row] = await stack.prisma.$queryRaw<{ waiting: number }[]>`
          SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        return row!.waiting > 0 ? true : undefined;
      });
      await client.query("COMMIT");
    };
    try {
      await asOnlyDecisionWorker(stack, { id: "worker-slow" }, commitLate, async () => {
        const decision = await decide(stack, approvalId, "allow_task");
        // Its own commit refused by the fence, the request read again and found the worker's commit of its decision.
        expect([decision.status, decision.body]).toEqual([202, { run_id: runId, status: "running" }]);
        expect(await waitForFinished(stack, runId)).toMatchObject({ status: "completed", output: "finished" });
      });
    } finally {
      await client.end();
    }
    const events = await stack.events(runId);
    expect(events.filter((event) => event.type === "approval.decided")).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool.completed" && event.data.tool === "write_file").map((event) => event.data.ok)).toEqual([true]);
    expect(await auditEntriesOf(stack, approvalId)).toBe(1);
  });

  it("is read again when the worker's commit was refused because the run changed: a run cancelled meanwhile is 409 run_finished", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const cancelThenCommit = async (offer: DecisionOffer) => {
      expect((await stack.request("POST", `/api/runs/${runId}/cancel`)).body.status).toBe("cancelled");
      expect(await commitAsWorker(sqlPoolOf(stack.prisma), offer, "worker-late")).toBeNull();
      const publisher = createRedis({ url: stack.workerConfig.redisUrl, maxRetriesPerRequest: null });
      try {
        await replyToDecision(publisher, offer.decision.replyTo, offer.decision.requestId, { kind: "refused" });
      } finally {
        await publisher.quit();
      }
    };
    await asOnlyDecisionWorker(stack, { id: "worker-late" }, cancelThenCommit, async (offers) => {
      const decision = await decide(stack, approvalId, "allow_task");
      expect([decision.status, decision.body.error?.code]).toEqual([409, "run_finished"]);
      expect(offers).toHaveLength(1);
    });
    const events = await stack.events(runId);
    expect(events.some((event) => event.type === "approval.decided" || event.type === "run.resumed")).toBe(false);
    expect(events.at(-1)?.type).toBe("run.cancelled");
    expect(await auditEntriesOf(stack, approvalId)).toBe(0);
  });

  it("is not offered to a worker of one slot, which takes no offer: the decision and new runs go through the queue", async () => {
    const { runId, approvalId } = await parkedRun(stack, WRITE);
    const creationJobs = (await jobsAddedFor(stack, runId)).length;
    const offers = await listeningWorker(stack, "worker-single");
    let decisionOffers: DecisionOffer[];
    try {
      decisionOffers = await asOnlyDecisionWorker(
        stack,
        { id: "worker-single", concurrency: 1 },
        () => undefined,
        async () => {
          const decision = await decide(stack, approvalId, "allow_task");
          expect([decision.status, decision.body]).toEqual([202, { run_id: runId, status: "queued" }]);
          const later = await stack.run(await stack.createChat(), { input: scenarioInput([{ text: "later" }]) });
          for (const queued of [runId, later]) expect(await waitForFinished(stack, queued)).toMatchObject({ status: "completed" });
          expect(await jobsAddedFor(stack, later)).toHaveLength(1);
        },
      );
    } finally {
      await offers.close();
    }
    expect(decisionOffers).toEqual([]);
    expect(offers.offers).toEqual([]);
    expect(await jobsAddedFor(stack, runId)).toHaveLength(creationJobs + 1);
  });
});
