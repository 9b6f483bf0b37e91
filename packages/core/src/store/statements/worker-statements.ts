import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

export interface WorkerPresence {
  id: string;
  host: string;
  startedAt: Date;
  concurrency: number;
  activeRuns: number;
  /** Its RUN_LEASE_MS: a decision that hands it a run gives a lease this long (runs/resume-handover.ts). */
  leaseMs: number;
}

/** A worker says it is alive (its row's `last_seen_at` is now), with how busy it is. */
export async function upsertWorkerPresence(runner: SqlRunner, worker: WorkerPresence): Promise<void> {
  await queryRowCount(
    runner,
    `INSERT INTO workers (id, host, started_at, last_seen_at, concurrency, active_runs, lease_ms) VALUES ($1, $2, $3, now(), $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), concurrency = EXCLUDED.concurrency, active_runs = EXCLUDED.active_runs, lease_ms = EXCLUDED.lease_ms`,
    [worker.id, worker.host, worker.startedAt, worker.concurrency, worker.activeRuns, worker.leaseMs],
  );
}

export async function deleteWorkerPresence(runner: SqlRunner, workerId: string): Promise<void> {
  await queryRowCount(runner, "DELETE FROM workers WHERE id = $1", [workerId]);
}

/** Rows of workers that stopped without saying so (killed, host lost): nobody needs them after a day. */
export async function deleteWorkersNotSeenSince(runner: SqlRunner, since: Date): Promise<number> {
  return queryRowCount(runner, "DELETE FROM workers WHERE last_seen_at < $1", [since]);
}

const workerRow = z.object({
  id: z.string(),
  host: z.string(),
  started_at: z.date(),
  last_seen_at: z.date(),
  concurrency: z.number(),
  active_runs: z.number(),
});

export type WorkerRow = z.output<typeof workerRow>;

/** Workers seen since `since`, longest running first. */
export async function selectWorkersSeenSince(runner: SqlRunner, since: Date): Promise<WorkerRow[]> {
  return queryParsed(
    runner,
    "SELECT id, host, started_at, last_seen_at, concurrency, active_runs FROM workers WHERE last_seen_at >= $1 ORDER BY started_at, id",
    [since],
    workerRow,
  );
}

const countsRow = z.object({ queued: z.number(), running: z.number(), awaiting_approval: z.number(), jobs_running: z.number() });

/** Runs by the statuses an operator watches, and background jobs running (the status indexes make each a range count). */
export async function selectActivityCounts(runner: SqlRunner): Promise<z.output<typeof countsRow>> {
  const [row] = await queryParsed(
    runner,
    `SELECT (SELECT count(*) FROM runs WHERE status = 'queued')::int AS queued,
            (SELECT count(*) FROM runs WHERE status = 'running')::int AS running,
            (SELECT count(*) FROM runs WHERE status = 'awaiting_approval')::int AS awaiting_approval,
            (SELECT count(*) FROM jobs WHERE status = 'running')::int AS jobs_running`,
    [],
    countsRow,
  );
  if (!row) throw new Error("the activity counts returned no row");
  return row;
}
