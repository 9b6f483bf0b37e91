import type { SqlRunner } from "../store/sql-pool.ts";
import { deleteWorkerPresence, deleteWorkersNotSeenSince, upsertWorkerPresence, type WorkerPresence } from "../store/statements/worker-statements.ts";

export type { WorkerPresence };

/** Rows of workers that vanished without deleting theirs (killed, host lost) are removed after a day. */
const STALE_WORKER_ROWS_AFTER_MS = 24 * 60 * 60 * 1000;

/** A worker says it is alive and how busy it is (every WORKER_PRESENCE_INTERVAL_MS), and sweeps rows long dead. */
export async function recordWorkerPresence(runner: SqlRunner, worker: WorkerPresence): Promise<void> {
  await upsertWorkerPresence(runner, worker);
  await deleteWorkersNotSeenSince(runner, new Date(Date.now() - STALE_WORKER_ROWS_AFTER_MS));
}

/** A worker that stops cleanly leaves the list at once. */
export async function removeWorkerPresence(runner: SqlRunner, workerId: string): Promise<void> {
  await deleteWorkerPresence(runner, workerId);
}
