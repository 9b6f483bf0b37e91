import { findRunsToReconcile, isRunStillUnheld, type PrismaClient } from "@agentq/core";
import type { RunQueue } from "@agentq/queue";

export interface ReconcileOptions {
  prisma: PrismaClient;
  runQueue: RunQueue;
  /** A queued run younger than this is left alone: its enqueue may still be on its way. */
  graceMs: number;
  /** Runs looked at per sweep. Default 500. */
  limit?: number;
}

/**
 * Re-enqueues every run that Postgres says should be executing and that has no live job: queued (and
 * not waiting behind an earlier run of its chat) or running with an expired lease (its worker died
 * or froze). Redis may have lost everything; Postgres has not (invariant 1). Safe to run from every
 * worker at once: the job id is derived from the run's state, so concurrent sweeps add one job.
 */
export async function reconcileRuns(
  options: ReconcileOptions,
): Promise<{ scheduled: string[]; samples: { id: string; status: string; leaseExpired: boolean }[] }> {
  const runs = await findRunsToReconcile(options.prisma, { graceMs: options.graceMs, limit: options.limit ?? 500 });
  const scheduled: string[] = [];
  const samples: { id: string; status: string; leaseExpired: boolean }[] = [];
  for (const run of runs) {
    // The rows were read once, and checking each in Redis takes time: a run may have been taken,
    // run and parked (its job completed and removed) since. Only a run still in the state read is
    // re-enqueued; otherwise the sweep would add a useless job for it.
    const result = await options.runQueue.ensureScheduled(run.id, run.generation, () => isRunStillUnheld(options.prisma, run.id, run.generation));
    if (result !== "scheduled") continue;
    scheduled.push(run.id);
    if (samples.length < 5) samples.push({ id: run.id, status: run.status, leaseExpired: run.leaseExpired });
  }
  return { scheduled, samples };
}
