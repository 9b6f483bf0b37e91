import type { Logger } from "pino";
import { findUsersAwaitingAdmission, markLostJobs, type PrismaClient, vacuumRunsWhereAutovacuumIsOff } from "@agentq/core";
import type { RunQueue } from "@agentq/queue";
import { reconcileRuns } from "./reconcile-runs.ts";

export interface SweepOptions {
  prisma: PrismaClient;
  runQueue: RunQueue;
  /** Admits the user's runs that wait for admission (core runs/admit-runs.ts). */
  admitUser: (userId: string) => Promise<unknown>;
  /** RECONCILE_INTERVAL_MS: between two sweeps; also the grace of a queued run whose enqueue may be on its way (at least 2 s). */
  intervalMs: number;
  logger: Logger;
}

/**
 * The worker's sweeps, at once and then every `intervalMs`, for what a process that died between a
 * commit and its after-commit work left behind (invariant 1): runs waiting for an admission that was
 * lost, runs without a live job (reconcileRuns), jobs whose worker stopped renewing them, and, where
 * Postgres' autovacuum is off, the runs table's dead rows. A failed sweep is logged; the next one
 * tries again. Returns the function that stops them.
 */
export function startSweeps(options: SweepOptions): () => void {
  const { prisma, runQueue, logger } = options;
  const sweep = () =>
    Promise.all([
      findUsersAwaitingAdmission(prisma, { limit: 1000 }).then(async (users) => {
        for (const userId of users) await options.admitUser(userId);
      }),
      reconcileRuns({ prisma, runQueue, graceMs: Math.max(2000, options.intervalMs) }).then(({ scheduled, samples }) => {
        if (scheduled.length > 0) logger.info({ runs: scheduled.length, samples }, "reconciler re-enqueued runs without a live job");
      }),
      // The sandbox dies with its worker: a job whose worker stopped renewing it died with it.
      markLostJobs(prisma).then((lost) => {
        if (lost.length > 0) logger.warn({ jobs: lost }, "reconciler marked jobs lost: their worker stopped renewing them");
      }),
      // Dead row versions the hot path's lookups would step over (core runs/vacuum-runs.ts).
      vacuumRunsWhereAutovacuumIsOff(prisma).then((vacuumed) => {
        if (vacuumed) logger.debug("reconciler vacuumed the runs table (autovacuum is off)");
      }),
    ]).catch((error: unknown) => logger.warn({ err: error }, "reconciler sweep failed"));
  void sweep();
  const timer = setInterval(sweep, options.intervalMs);
  return () => clearInterval(timer);
}
