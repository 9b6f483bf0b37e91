import type { SqlRunner } from "../store/sql-pool.ts";
import { selectWorkersSeenSince } from "../store/statements/worker-statements.ts";
import { WORKER_PRESENCE_TIMEOUT_MS } from "./load-service-status.ts";

/** A worker process seen alive lately, as its last beat described it. */
export interface LiveWorker {
  id: string;
  /** Its slots (WORKER_CONCURRENCY) less the runs it executed at its last beat, at least 0. */
  freeSlots: number;
  lastSeenAt: Date;
}

/**
 * The workers seen within WORKER_PRESENCE_TIMEOUT_MS of `now` that a run may be offered to: those of
 * more than one slot. A worker lends offered runs its slots but the one BullMQ keeps (apps/worker
 * offered-runs.ts), so one of a single slot takes no offer, and every run offered to it went to the
 * queue by way of it (a decision by way of its API): its runs come from the queue directly.
 */
export async function listLiveWorkers(runner: SqlRunner, now: Date): Promise<LiveWorker[]> {
  const rows = await selectWorkersSeenSince(runner, new Date(now.getTime() - WORKER_PRESENCE_TIMEOUT_MS));
  return rows
    .filter((row) => row.concurrency > 1)
    .map((row) => ({ id: row.id, freeSlots: Math.max(0, row.concurrency - row.active_runs), lastSeenAt: row.last_seen_at }));
}
