import { NOTHING_AHEAD_IN_CHAT } from "@agentq/core/runs/run-lease";
import { Prisma, type PrismaClient } from "@agentq/core/store/create-prisma-client";
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
  const rows = await options.prisma.$queryRaw<{ id: string; last_event_seq: number; lease_version: number; status: string; lease_expires_at: Date | null }[]>`
    SELECT r.id, r.last_event_seq, r.lease_version, r.status::text AS status, r.lease_expires_at FROM runs AS r
    WHERE r.status IN ('queued', 'running')
      AND (r.lease_expires_at IS NULL OR r.lease_expires_at < now())
      AND (r.status = 'running' OR r.updated_at < now() - make_interval(secs => ${options.graceMs / 1000}))
      AND ${Prisma.raw(NOTHING_AHEAD_IN_CHAT)}
    ORDER BY r.updated_at
    LIMIT ${options.limit ?? 500}`;
  const scheduled: string[] = [];
  const samples: { id: string; status: string; leaseExpired: boolean }[] = [];
  for (const row of rows) {
    const generation = { lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version };
    // The rows were read once, and checking each in Redis takes time: a run may have been taken,
    // run and parked (its job completed and removed) since. Only a run still in the state read is
    // re-enqueued; otherwise the sweep would add a useless job for it.
    const result = await options.runQueue.ensureScheduled(row.id, generation, () => stillNeedsJob(options.prisma, row.id, generation));
    if (result !== "scheduled") continue;
    scheduled.push(row.id);
    if (samples.length < 5) samples.push({ id: row.id, status: row.status, leaseExpired: row.lease_expires_at !== null });
  }
  return { scheduled, samples };
}

async function stillNeedsJob(prisma: PrismaClient, runId: string, generation: { lastEventSeq: number; leaseVersion: number }): Promise<boolean> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM runs
    WHERE id = ${runId} AND status IN ('queued', 'running')
      AND last_event_seq = ${generation.lastEventSeq} AND lease_version = ${generation.leaseVersion}
      AND (lease_expires_at IS NULL OR lease_expires_at < now())`;
  return rows.length > 0;
}
