import { z } from "zod";
import { RunStatus } from "../generated/enums.ts";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";
import { NOTHING_AHEAD_IN_CHAT } from "./run-lease-statements.ts";

// The reconciler (apps/worker/src/reconcile-runs.ts, docs/design.md invariant 1): runs that Postgres says
// should be executing and that nobody holds.

const runToReconcileRow = z.object({
  id: z.string(),
  last_event_seq: z.number(),
  lease_version: z.number(),
  status: z.enum(RunStatus),
  lease_expires_at: z.date().nullable(),
});

/**
 * Queued runs older than `graceSeconds` that admission let through (runs/admit-runs.ts: the others wait
 * for it, with no job) and that nothing in their chat is ahead of, and running runs
 * whose lease has expired, least recently updated first (at most `limit`).
 */
export async function selectRunsToReconcile(runner: SqlRunner, input: { graceSeconds: number; limit: number }): Promise<z.output<typeof runToReconcileRow>[]> {
  return queryParsed(
    runner,
    `SELECT r.id, r.last_event_seq, r.lease_version, r.status::text AS status, r.lease_expires_at FROM runs AS r
    WHERE r.status IN ('queued', 'running')
      AND (r.lease_expires_at IS NULL OR r.lease_expires_at < now())
      AND (r.status = 'running' OR (r.dispatched_at IS NOT NULL AND r.updated_at < now() - make_interval(secs => $1)))
      AND ${NOTHING_AHEAD_IN_CHAT}
    ORDER BY r.updated_at
    LIMIT $2`,
    [input.graceSeconds, input.limit],
    runToReconcileRow,
  );
}

const runIdRow = z.object({ id: z.string() });

/**
 * The run if it is still queued or running with no live lease, in the generation the reconciler read
 * (same last event seq and lease version); no row: it moved on since.
 */
export async function selectRunStillUnheld(
  runner: SqlRunner,
  input: { runId: string; lastEventSeq: number; leaseVersion: number },
): Promise<z.output<typeof runIdRow> | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT id FROM runs
    WHERE id = $1 AND status IN ('queued', 'running')
      AND last_event_seq = $2 AND lease_version = $3
      AND (lease_expires_at IS NULL OR lease_expires_at < now())`,
    [input.runId, input.lastEventSeq, input.leaseVersion],
    runIdRow,
  );
  return row;
}
