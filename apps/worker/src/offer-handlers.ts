import type { Logger } from "pino";
import {
  acquireRun,
  type AcquireOutcome,
  type DecisionCommitOutcome,
  handedOverRun,
  newRunFromStart,
  type PrismaClient,
  releaseLease,
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
      // A decision left to this worker: the run's first commit records it and takes the lease, fenced by
      // the run as the decision read it, and the API is told what became of it as soon as that commit is
      // back. Until then the run is parked, the decision not committed: nothing to hand on if it fails.
      const { decision } = offer;
      // Set by the first commit, through `settle` (typed wide: the compiler cannot see that call).
      let decided = null as DecisionCommitOutcome | null;
      const settle = (outcome: DecisionCommitOutcome) => {
        decided = outcome;
        if (decision) void reply(decision, outcome);
      };
      // Handed over: the decision's commit took the lease for this worker and read the context. A new
      // run with its context: its first commit takes the lease (core runs/new-run-start.ts). A context
      // that does not parse throws: OfferedRuns then enqueues the offer (a decision: declines it).
      const held = { runId: offer.runId, leaseVersion: offer.generation.leaseVersion, owner: workerId };
      const acquired = offer.handover
        ? handedOverRun(offer.handover, held, decision && { record: decision.record, settle })
        : offer.start
          ? newRunFromStart(offer.start, held)
          : await acquireRun(prisma, { runId: offer.runId, owner: workerId, leaseMs: options.leaseMs });
      // Held by another worker, parked again or finished: its holder, or its next decision, goes on.
      if (acquired.kind !== "acquired") return;
      // The queue's job id must be new for this execution: the lease version taken is (read after the
      // execution: a first commit takes it then; a run that never took it is enqueued as admitted).
      const handedOn = () => ({ lastEventSeq: offer.generation.lastEventSeq, leaseVersion: acquired.lease.leaseVersion });
      const decisionCommitted = () => !decision || decided?.kind === "committed";
      try {
        const outcome = await options.executeTaken(acquired);
        // Stopping: another worker continues at once, as with a job moved back to the queue.
        if (outcome.kind === "handed_back" && decisionCommitted()) await enqueueRun(offer.runId, handedOn());
      } catch (error) {
        // The loop itself failed (a bug, Postgres gone): the queue retries the run from here, with its
        // attempts and backoff, and fails it after the last one (run-worker.ts processJob).
        logger.error({ err: error, run_id: offer.runId }, "execution of an offered run failed; enqueueing it");
        if (decisionCommitted()) {
          await releaseLease(prisma, acquired.lease).catch(() => undefined);
          await enqueueRun(offer.runId, handedOn());
        }
      } finally {
        // A decision whose first commit did not come back (it failed, or the execution failed before
        // it) may have landed: the API looks for itself.
        if (decision && decided === null) settle({ kind: "unknown" });
      }
    },
  };
}
