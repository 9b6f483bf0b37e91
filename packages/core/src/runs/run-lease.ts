import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { preparedSql, queryRows } from "../store/sql-pool.ts";
import { isParked, isTerminal, type RunStatus } from "./run-status.ts";

/** A worker's hold on a run: every write it makes names `leaseVersion` (fencing). */
export interface RunLease {
  runId: string;
  leaseVersion: number;
  owner: string;
  /** The run had started before (a crash, a hand-back or an approval resumed it). */
  resumed: boolean;
  previousStatus: RunStatus;
}

export type AcquireOutcome =
  | { kind: "acquired"; lease: RunLease }
  /** Another worker holds a live lease: try again once it may have expired. */
  | { kind: "lease_held"; retryAt: Date }
  /** An earlier run of the same chat is still active: the run is started when that one ends. */
  | { kind: "blocked" }
  /** Finished, parked, or gone: nothing to do. */
  | { kind: "not_executable"; status: RunStatus | null };

/**
 * The chat-ordering rule, as a condition on a run aliased `r`: no other run of its chat is running
 * or parked, and none is queued ahead of it. Runs of a chat execute one at a time, in order
 * (multitask "enqueue"); acquiring, handing on and reconciling all use this one definition.
 */
export const NOTHING_AHEAD_IN_CHAT = `NOT EXISTS (
  SELECT 1 FROM runs AS o
  WHERE o.chat_id = r.chat_id AND o.id <> r.id
    AND (o.status IN ('running', 'awaiting_approval') OR (o.status = 'queued' AND (o.created_at, o.id) < (r.created_at, r.id))))`;

const ACQUIRE_SQL = preparedSql(
  "run_acquire",
  `
WITH previous AS (SELECT id, status, started_at FROM runs WHERE id = $1 FOR UPDATE)
UPDATE runs AS r SET
  lease_version = r.lease_version + 1,
  lease_owner = $2,
  lease_expires_at = now() + make_interval(secs => $3),
  status = 'running',
  started_at = coalesce(r.started_at, now()),
  updated_at = now()
FROM previous
WHERE r.id = previous.id
  AND r.status IN ('queued', 'running')
  AND (r.lease_expires_at IS NULL OR r.lease_expires_at < now())
  AND ${NOTHING_AHEAD_IN_CHAT}
RETURNING r.lease_version, previous.status::text AS previous_status, previous.started_at AS previous_started`,
);

/**
 * Takes a run for a worker: one conditional UPDATE that bumps the fencing version, so whoever held
 * the run before can no longer write (its version is stale), and that refuses while a live lease is
 * held or an earlier run of the chat is still active. The statements here run on the client's pg
 * pool (store/sql-pool.ts): every execution starts with one.
 */
export async function acquireRun(prisma: PrismaClient, input: { runId: string; owner: string; leaseMs: number }): Promise<AcquireOutcome> {
  const pool = sqlPoolOf(prisma);
  const [row] = await queryRows<{ lease_version: number; previous_status: RunStatus; previous_started: Date | null }>(pool, ACQUIRE_SQL, [
    input.runId,
    input.owner,
    input.leaseMs / 1000,
  ]);
  if (row) {
    return {
      kind: "acquired",
      lease: {
        runId: input.runId,
        leaseVersion: row.lease_version,
        owner: input.owner,
        resumed: row.previous_started !== null,
        previousStatus: row.previous_status,
      },
    };
  }
  const [run] = await queryRows<{ status: RunStatus; lease_expires_at: Date | null }>(
    pool,
    "SELECT status::text AS status, lease_expires_at FROM runs WHERE id = $1",
    [input.runId],
  );
  if (!run || isTerminal(run.status) || isParked(run.status)) return { kind: "not_executable", status: run?.status ?? null };
  if (run.lease_expires_at && run.lease_expires_at.getTime() > Date.now()) return { kind: "lease_held", retryAt: run.lease_expires_at };
  return { kind: "blocked" };
}

/** Gives the run up without finishing it (worker shutdown): any worker may take it at once. */
export async function releaseLease(prisma: PrismaClient, lease: RunLease): Promise<boolean> {
  const result = await sqlPoolOf(prisma).query("UPDATE runs SET lease_expires_at = NULL, lease_owner = NULL WHERE id = $1 AND lease_version = $2", [
    lease.runId,
    lease.leaseVersion,
  ]);
  return (result.rowCount ?? 0) > 0;
}

const NEXT_IN_CHAT_SQL = preparedSql(
  "run_next_in_chat",
  `SELECT r.id, r.last_event_seq, r.lease_version FROM runs AS r
  WHERE r.chat_id = $1 AND r.status = 'queued' AND ${NOTHING_AHEAD_IN_CHAT}
  ORDER BY r.created_at, r.id LIMIT 1`,
);

/** The oldest queued run of the chat that nothing blocks now, to hand to a worker when a run ends. */
export async function nextRunnableRunOfChat(prisma: PrismaClient, chatId: string): Promise<{ id: string; lastEventSeq: number; leaseVersion: number } | null> {
  const [row] = await queryRows<{ id: string; last_event_seq: number; lease_version: number }>(sqlPoolOf(prisma), NEXT_IN_CHAT_SQL, [chatId]);
  return row ? { id: row.id, lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version } : null;
}

/**
 * Renews every lease a worker holds in one statement (one round trip per interval, however many
 * runs). Returns the runs still held, with their cancel flag; a run missing from the answer was lost.
 */
export async function renewLeases(prisma: PrismaClient, leases: readonly RunLease[], leaseMs: number): Promise<Map<string, { cancelRequested: boolean }>> {
  if (leases.length === 0) return new Map();
  const rows = await queryRows<{ id: string; cancel_requested: boolean }>(
    sqlPoolOf(prisma),
    `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $1)
    FROM unnest($2::text[], $3::int[], $4::text[]) AS held(id, version, owner)
    WHERE runs.id = held.id AND runs.lease_version = held.version AND runs.lease_owner = held.owner
    RETURNING runs.id, runs.cancel_requested`,
    [leaseMs / 1000, leases.map((lease) => lease.runId), leases.map((lease) => lease.leaseVersion), leases.map((lease) => lease.owner)],
  );
  return new Map(rows.map((row) => [row.id, { cancelRequested: row.cancel_requested }]));
}
