import type { PrismaClient } from "../store/create-prisma-client.ts";
import { Prisma } from "../store/generated/client.ts";
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
export const NOTHING_AHEAD_IN_CHAT = Prisma.sql`NOT EXISTS (
  SELECT 1 FROM runs AS o
  WHERE o.chat_id = r.chat_id AND o.id <> r.id
    AND (o.status IN ('running', 'awaiting_approval') OR (o.status = 'queued' AND (o.created_at, o.id) < (r.created_at, r.id))))`;

/**
 * Takes a run for a worker: one conditional UPDATE that bumps the fencing version, so whoever held
 * the run before can no longer write (its version is stale), and that refuses while a live lease is
 * held or an earlier run of the chat is still active.
 */
export async function acquireRun(prisma: PrismaClient, input: { runId: string; owner: string; leaseMs: number }): Promise<AcquireOutcome> {
  const rows = await prisma.$queryRaw<{ lease_version: number; previous_status: RunStatus; previous_started: Date | null }[]>`
    WITH previous AS (SELECT id, status, started_at FROM runs WHERE id = ${input.runId} FOR UPDATE)
    UPDATE runs AS r SET
      lease_version = r.lease_version + 1,
      lease_owner = ${input.owner},
      lease_expires_at = now() + make_interval(secs => ${input.leaseMs / 1000}),
      status = 'running',
      started_at = coalesce(r.started_at, now()),
      updated_at = now()
    FROM previous
    WHERE r.id = previous.id
      AND r.status IN ('queued', 'running')
      AND (r.lease_expires_at IS NULL OR r.lease_expires_at < now())
      AND ${NOTHING_AHEAD_IN_CHAT}
    RETURNING r.lease_version, previous.status AS previous_status, previous.started_at AS previous_started`;
  const row = rows[0];
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
  const run = await prisma.run.findUnique({ where: { id: input.runId }, select: { status: true, leaseExpiresAt: true } });
  if (!run || isTerminal(run.status) || isParked(run.status)) return { kind: "not_executable", status: run?.status ?? null };
  if (run.leaseExpiresAt && run.leaseExpiresAt.getTime() > Date.now()) return { kind: "lease_held", retryAt: run.leaseExpiresAt };
  return { kind: "blocked" };
}

/** Gives the run up without finishing it (worker shutdown): any worker may take it at once. */
export async function releaseLease(prisma: PrismaClient, lease: RunLease): Promise<boolean> {
  const count = await prisma.$executeRaw`
    UPDATE runs SET lease_expires_at = NULL, lease_owner = NULL
    WHERE id = ${lease.runId} AND lease_version = ${lease.leaseVersion}`;
  return count > 0;
}

/** The oldest queued run of the chat that nothing blocks now, to hand to a worker when a run ends. */
export async function nextRunnableRunOfChat(prisma: PrismaClient, chatId: string): Promise<{ id: string; lastEventSeq: number; leaseVersion: number } | null> {
  const rows = await prisma.$queryRaw<{ id: string; last_event_seq: number; lease_version: number }[]>`
    SELECT r.id, r.last_event_seq, r.lease_version FROM runs AS r
    WHERE r.chat_id = ${chatId} AND r.status = 'queued'
      AND ${NOTHING_AHEAD_IN_CHAT}
    ORDER BY r.created_at, r.id LIMIT 1`;
  const row = rows[0];
  return row ? { id: row.id, lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version } : null;
}

/**
 * Renews every lease a worker holds in one statement (one round trip per interval, however many
 * runs). Returns the runs still held, with their cancel flag; a run missing from the answer was lost.
 */
export async function renewLeases(prisma: PrismaClient, leases: readonly RunLease[], leaseMs: number): Promise<Map<string, { cancelRequested: boolean }>> {
  if (leases.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ id: string; cancel_requested: boolean }[]>`
    UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
    FROM unnest(${leases.map((lease) => lease.runId)}::text[], ${leases.map((lease) => lease.leaseVersion)}::int[], ${leases.map((lease) => lease.owner)}::text[])
      AS held(id, version, owner)
    WHERE runs.id = held.id AND runs.lease_version = held.version AND runs.lease_owner = held.owner
    RETURNING runs.id, runs.cancel_requested`;
  return new Map(rows.map((row) => [row.id, { cancelRequested: row.cancel_requested }]));
}
