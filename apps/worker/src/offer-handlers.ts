import type { Logger } from "pino";
import {
  acquireRun,
  type AcquireOutcome,
  handedOverRun,
  newRunFromStart,
  type PrismaClient,
  releaseLease,
  returnHandedOverRun,
  type RunGeneration,
  type RunOutcome,
} from "@agentq/core";
import type { RunOffer } from "@agentq/queue";
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
  return {
    async enqueue(offer: RunOffer): Promise<void> {
      if (!offer.handover) return enqueueRun(offer.runId, offer.generation);
      const returned = await returnHandedOverRun(prisma, { runId: offer.runId, generation: offer.generation }).catch((error: unknown) => {
        logger.warn({ err: error, run_id: offer.runId }, "could not unlease a handed-over run; it is handed on when its lease runs out");
        return null;
      });
      if (returned) await enqueueRun(offer.runId, returned);
    },
    async execute(offer: RunOffer): Promise<void> {
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
      // The queue's job id must be new for this execution: the lease version taken is (read after the
      // execution: a new run's first commit takes it then; one that never took it is enqueued as admitted).
      const handedOn = () => ({ lastEventSeq: offer.generation.lastEventSeq, leaseVersion: acquired.lease.leaseVersion });
      try {
        const outcome = await options.executeTaken(acquired);
        // Stopping: another worker continues at once, as with a job moved back to the queue.
        if (outcome.kind === "handed_back") await enqueueRun(offer.runId, handedOn());
      } catch (error) {
        // The loop itself failed (a bug, Postgres gone): the queue retries the run from here, with its
        // attempts and backoff, and fails it after the last one (run-worker.ts processJob).
        logger.error({ err: error, run_id: offer.runId }, "execution of an offered run failed; enqueueing it");
        await releaseLease(prisma, acquired.lease).catch(() => undefined);
        await enqueueRun(offer.runId, handedOn());
      }
    },
  };
}
