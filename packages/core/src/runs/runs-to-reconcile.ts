import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { selectUsersAwaitingAdmission } from "../store/statements/admission-statements.ts";
import { selectRunStillUnheld, selectRunsToReconcile } from "../store/statements/reconcile-statements.ts";
import type { RunGeneration } from "./run-loop-dependencies.ts";
import type { RunStatus } from "./run-status.ts";

/** A run Postgres says should be executing and that nobody holds (invariant 1). */
export interface RunToReconcile {
  id: string;
  status: RunStatus;
  generation: RunGeneration;
  /** Running with an expired lease (its worker died or froze), rather than queued. */
  leaseExpired: boolean;
}

/**
 * Admitted queued runs older than `graceMs` (their enqueue may still be on its way) that nothing in their chat
 * is ahead of, and running runs whose lease expired; least recently updated first, at most `limit`.
 */
export async function findRunsToReconcile(prisma: PrismaClient, options: { graceMs: number; limit: number }): Promise<RunToReconcile[]> {
  const rows = await selectRunsToReconcile(sqlPoolOf(prisma), { graceSeconds: options.graceMs / 1000, limit: options.limit });
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    generation: { lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version },
    leaseExpired: row.lease_expires_at !== null,
  }));
}

/** Whether the run is still unheld in the generation the reconciler read (it may have moved on since). */
export async function isRunStillUnheld(prisma: PrismaClient, runId: string, generation: RunGeneration): Promise<boolean> {
  return (await selectRunStillUnheld(sqlPoolOf(prisma), { runId, ...generation })) !== undefined;
}

/** Users with a queued run waiting for admission: the sweep admits for each (a trigger may have been lost with a crash). */
export async function findUsersAwaitingAdmission(prisma: PrismaClient, options: { limit: number }): Promise<string[]> {
  return selectUsersAwaitingAdmission(sqlPoolOf(prisma), options);
}
