import type { Logger } from "pino";
import {
  acquireRun,
  type AcquireOutcome,
  type DecisionCommitOutcome,
  handedOverRun,
  newRunFromStart,
  type PrismaClient,
  releaseLease,
  type ResumeHandover,
  returnHandedOverRun,
  type RunGeneration,
  type RunOutcome,
} from "@agentq/core";
import type { OfferedDecision, RunOffer } from "@agentq/queue";
import type { OfferedRunsOptions } from "./offered-runs.ts";

export interface OfferHandlerOptions {
  prisma: PrismaClient;
  workerId: string;
  /** RUN_LEASE_MS: the lease a take of a plain offer (no handover) holds. */
  leaseMs: number;
  /** Adds the run's queue job (RunQueue.schedule). */
  schedule: (runId: string, generation: RunGeneration) => Promise<unknown>;
  /** Executes a run this worker has just taken, holding its slot until the execution ends (run-worker.ts). */
  executeTaken: (acquired: Extract<AcquireOutcome, { kind: "acquired" }>) => Promise<RunOutcome>;
  /** Answers the API instance that left a decision to this worker (queue run-decision-offer.ts). */
  replyToDecision: (decision: OfferedDecision, outcome: DecisionCommitOutcome) => Promise<void>;
  logger: Logger;
}

/**
 * What the worker does with a decided approval's run offered to it (offered-runs.ts): `execute` takes
 * and executes it, `enqueue` sends it to the queue. A run its decision handed over leased to this worker
 * (core runs/resume-handover.ts) needs no take, and is unleased before it goes to the queue, for the
 * job's take to find it free.
 */
export function offerHandlers(options: OfferHandlerOptions): Pick<OfferedRunsOptions, "execute" | "enqueue"> {
  const { prisma, workerId, logger } = options;
  const enqueueRun = (runId: string, generation: RunGeneration) =>
    options.schedule(runId, generation).then(
      () => undefined,
      (error: unknown) => logger.warn({ err: error, run_id: runId }, "could not enqueue an offered run; the reconciler will"),
    );
  const reply = (decision: OfferedDecision, outcome: DecisionCommitOutcome) =>
    options.replyToDecision(decision, outcome).catch((error: unknown) => {
      logger.warn({ err: error, run_id: decision.record.runId }, "could not answer a decision offer; the API finds out what became of it itself");
    });

  /**
   * A decision left to this worker: the run's first commit records it and takes the lease, fenced by the
   * run as the decision read it; the API is told what became of it as soon as that commit is back. A
   * decision whose context does not parse is declined (nothing was sent to Postgres); one whose first
   * commit failed, or whose execution failed before it, is `unknown` to the API, which looks for itself.
   */
  const executeDecided = async (offer: RunOffer, decision: OfferedDecision, handover: ResumeHandover): Promise<void> => {
    // Set by the first commit (through `settle`), so read through the object.
    const settled: { outcome: DecisionCommitOutcome | null } = { outcome: null };
    const settle = (outcome: DecisionCommitOutcome) => {
      settled.outcome = outcome;
      void reply(decision, outcome);
    };
    let acquired: Extract<AcquireOutcome, { kind: "acquired" }>;
    try {
      acquired = handedOverRun(handover, { runId: offer.runId, leaseVersion: offer.generation.leaseVersion, owner: workerId });
    } catch (error) {
      logger.warn({ err: error, run_id: offer.runId }, "a decision offer's context did not parse; declining it");
      settle({ kind: "declined" });
      return;
    }
    acquired.leaseOnFirstCommit = true;
    acquired.decisionOnFirstCommit = { record: decision.record, settle };
    try {
      const executed = await options.executeTaken(acquired);
      // Stopping after the decision committed (and the lease was released): another worker continues.
      if (executed.kind === "handed_back" && settled.outcome?.kind === "committed") await enqueueRun(offer.runId, handedOn(offer, acquired));
    } catch (error) {
      logger.error({ err: error, run_id: offer.runId }, "execution of a decided run failed");
      if (settled.outcome?.kind === "committed") {
        await releaseLease(prisma, acquired.lease).catch(() => undefined);
        await enqueueRun(offer.runId, handedOn(offer, acquired));
      }
    } finally {
      // No first commit came back (it failed, or the execution failed before it): it may have landed.
      if (settled.outcome === null) settle({ kind: "unknown" });
    }
  };

  return {
    async enqueue(offer: RunOffer): Promise<void> {
      // A decision not committed leaves the run parked: the API commits it itself.
      if (offer.decision) return void (await reply(offer.decision, { kind: "declined" }));
      if (!offer.handover) return enqueueRun(offer.runId, offer.generation);
      const returned = await returnHandedOverRun(prisma, { runId: offer.runId, generation: offer.generation }).catch((error: unknown) => {
        logger.warn({ err: error, run_id: offer.runId }, "could not unlease a handed-over run; it is handed on when its lease runs out");
        return null;
      });
      if (returned) await enqueueRun(offer.runId, returned);
    },
    async execute(offer: RunOffer): Promise<void> {
      if (offer.decision && offer.handover) return executeDecided(offer, offer.decision, offer.handover);
      // Handed over: the decision's commit took the lease for this worker and read the context. A new
      // run with its context: its first commit takes the lease (core runs/new-run-start.ts).
      const held = { runId: offer.runId, leaseVersion: offer.generation.leaseVersion, owner: workerId };
      const acquired = offer.handover
        ? handedOverRun(offer.handover, held)
        : offer.start
          ? newRunFromStart(offer.start, held)
          : await acquireRun(prisma, { runId: offer.runId, owner: workerId, leaseMs: options.leaseMs });
      // Held by another worker, parked again or finished: its holder, or its next decision, goes on.
      if (acquired.kind !== "acquired") return;
      try {
        const outcome = await options.executeTaken(acquired);
        // Stopping: another worker continues at once, as with a job moved back to the queue.
        if (outcome.kind === "handed_back") await enqueueRun(offer.runId, handedOn(offer, acquired));
      } catch (error) {
        // The loop itself failed (a bug, Postgres gone): the queue retries the run from here, with its
        // attempts and backoff, and fails it after the last one (run-worker.ts processJob).
        logger.error({ err: error, run_id: offer.runId }, "execution of an offered run failed; enqueueing it");
        await releaseLease(prisma, acquired.lease).catch(() => undefined);
        await enqueueRun(offer.runId, handedOn(offer, acquired));
      }
    },
  };
}

/**
 * The generation the run's queue job is to carry after this execution: the lease version taken, read
 * after the execution (a first commit takes it then; a run that never took it is enqueued as admitted).
 */
function handedOn(offer: RunOffer, acquired: Extract<AcquireOutcome, { kind: "acquired" }>): RunGeneration {
  return { lastEventSeq: offer.generation.lastEventSeq, leaseVersion: acquired.lease.leaseVersion };
}
