import type pg from "pg";
import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { inSqlTransaction, preparedSql, queryRows } from "../store/sql-pool.ts";
import { cancelRunInTransaction } from "./cancel-run.ts";
import { RunInProgressError } from "./run-errors.ts";
import { ACTIVE_STATUSES } from "./run-status.ts";

export type MultitaskStrategy = "reject" | "enqueue" | "interrupt";

export interface CreateRunInput {
  userId: string;
  chatId: string;
  input: string;
  model: string;
  mode: "agent" | "guide";
  allowBash: boolean;
  allowWebSearch: boolean;
  useWeb: boolean;
  multitask: MultitaskStrategy;
  idempotencyKey?: string | undefined;
}

export interface CreateRunDependencies {
  prisma: PrismaClient;
  clock: Clock;
  generateId: GenerateId;
}

export interface CreateRunResult {
  runId: string;
  /** False when an idempotency key returned an earlier run. */
  created: boolean;
  /** The run may be handed to a worker now (no earlier run of the chat is still active). */
  runnable: boolean;
  /** Events committed by this call, per run (the new run's run.queued; interrupted runs' run.cancelled). */
  events: { runId: string; events: RunEventRecord[] }[];
  /** Interrupted runs that a worker is executing: it must be told to stop now. */
  cancelRequested: string[];
}

/** "The same idempotency_key from the same user within 24 hours returns the first run." */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Serializes concurrent requests with the same key (they may name different chats). */
const KEY_LOCK_SQL = preparedSql("run_create_key_lock", "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))");

/**
 * Locks the chat row, so run creation in one chat is serialized and the multitask rule holds, and
 * reads the run an unexpired idempotency key already names ($3 null: no key). The key's lock was
 * taken by an earlier statement, so this one's snapshot sees what its previous holder committed;
 * what the chat's lock guards is read by the next statement, whose snapshot starts after the wait.
 */
const LOCK_CHAT_SQL = preparedSql(
  "run_create_lock_chat",
  `
SELECT (SELECT id FROM chats WHERE id = $1 AND user_id = $2 FOR UPDATE) AS chat_id,
  (SELECT run_id FROM idempotency_keys WHERE user_id = $2 AND key = $3 AND expires_at > $4) AS existing_run_id`,
);

/** The chat's active runs, oldest first: the ones an interrupt cancels. */
const ACTIVE_RUNS_SQL = preparedSql("run_create_active", `SELECT id FROM runs WHERE chat_id = $1 AND status = ANY($2::"RunStatus"[]) ORDER BY created_at, id`);

/**
 * The multitask rule and the new run in one statement: the chat's active runs (after any interrupt,
 * so only runs still being stopped by their worker), the run row unless "reject" ($12) finds one,
 * its `run.queued` event with seq 1, and the idempotency key ($14 null: none) pointing at it. The
 * runs still active are the ones the new run must wait for.
 *
 * The run is stamped after every active run of the chat (at least 1 ms, the column's precision),
 * so the chat's order `(created_at, id)`, which workers follow (NOTHING_AHEAD_IN_CHAT), is the
 * order of these commits under the chat's lock. With the request's clock alone, runs created in
 * the same millisecond (or on API instances whose clocks differ) were ordered by their random ids:
 * the run that was runnable when it committed, and so got the job, could sort behind a later one,
 * and the chat stalled until the reconciler stepped in.
 */
const CREATE_SQL = preparedSql(
  "run_create",
  `
WITH active AS (
  SELECT id, created_at FROM runs WHERE chat_id = $1 AND status = ANY($2::"RunStatus"[])
),
stamp AS (
  SELECT GREATEST($11::timestamptz, (SELECT max(created_at) FROM active) + interval '1 millisecond') AS at
),
created AS (
  INSERT INTO runs (id, chat_id, user_id, status, input, model, mode, allow_bash, allow_web_search, use_web, last_event_seq, created_at, updated_at)
  SELECT $3, $1, $4, 'queued', $5, $6, $7::"RunMode", $8, $9, $10, 1, stamp.at, stamp.at FROM stamp
  WHERE NOT $12::boolean OR NOT EXISTS (SELECT 1 FROM active)
  RETURNING id, created_at
),
queued_event AS (
  INSERT INTO run_events (run_id, seq, type, data, created_at)
  SELECT id, 1, 'run.queued', $13::jsonb, created_at FROM created
),
remembered_key AS (
  INSERT INTO idempotency_keys (user_id, key, run_id, expires_at)
  SELECT $4, $14, id, $15 FROM created WHERE $14::text IS NOT NULL
  ON CONFLICT (user_id, key) DO UPDATE SET run_id = EXCLUDED.run_id, expires_at = EXCLUDED.expires_at
)
SELECT (SELECT created_at FROM created) AS created_at,
  (SELECT id FROM active ORDER BY created_at, id LIMIT 1) AS first_active_id,
  (SELECT count(*) FROM active)::int AS blocking_runs`,
);

/**
 * Creates a queued run in one transaction: idempotency, the chat's multitask rule, the run row and
 * its `run.queued` event (seq 1). The caller enqueues it after the commit when `runnable`.
 *
 * Plain SQL on the Prisma client's pool (store/sql-pool.ts): every run starts here. Without a key,
 * a run is created or refused in four round trips (BEGIN, the chat's lock, the create statement,
 * COMMIT) where Prisma's interactive transaction took eight; a key adds its lock.
 */
export async function createRun(dependencies: CreateRunDependencies, input: CreateRunInput): Promise<CreateRunResult> {
  const now = dependencies.clock();
  return inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
    if (input.idempotencyKey !== undefined) {
      await queryRows(client, KEY_LOCK_SQL, [`idem:${input.userId}:${input.idempotencyKey}`]);
    }
    const [locked] = await queryRows<{ chat_id: string | null; existing_run_id: string | null }>(client, LOCK_CHAT_SQL, [
      input.chatId,
      input.userId,
      input.idempotencyKey ?? null,
      now,
    ]);
    if (locked?.existing_run_id) return { runId: locked.existing_run_id, created: false, runnable: false, events: [], cancelRequested: [] };
    if (!locked?.chat_id) throw new NotFoundError("chat", { chat_id: input.chatId });

    const events: CreateRunResult["events"] = [];
    const cancelRequested: string[] = [];
    if (input.multitask === "interrupt") await interruptActiveRuns(client, input.chatId, now, events, cancelRequested);

    const runId = dependencies.generateId("run");
    const [outcome] = await queryRows<{ created_at: Date | null; first_active_id: string | null; blocking_runs: number }>(client, CREATE_SQL, [
      input.chatId,
      ACTIVE_STATUSES,
      runId,
      input.userId,
      input.input,
      input.model,
      input.mode,
      input.allowBash,
      input.allowWebSearch,
      input.useWeb,
      now,
      input.multitask === "reject",
      JSON.stringify({ multitask: input.multitask }),
      input.idempotencyKey ?? null,
      new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
    ]);
    if (!outcome?.created_at) throw new RunInProgressError(input.chatId, outcome?.first_active_id ?? "");
    events.push({ runId, events: [{ seq: 1, type: "run.queued", at: outcome.created_at.toISOString(), data: { multitask: input.multitask } }] });
    return { runId, created: true, runnable: outcome.blocking_runs === 0, events, cancelRequested };
  });
}

/** Cancels the chat's active runs (multitask "interrupt"), oldest first, collecting what the caller publishes. */
async function interruptActiveRuns(
  client: pg.PoolClient,
  chatId: string,
  now: Date,
  events: CreateRunResult["events"],
  cancelRequested: string[],
): Promise<void> {
  const active = await queryRows<{ id: string }>(client, ACTIVE_RUNS_SQL, [chatId, ACTIVE_STATUSES]);
  for (const run of active) {
    const cancelled = await cancelRunInTransaction(client, run.id, now, "interrupted by a newer run of the chat");
    if (cancelled.events.length > 0) events.push({ runId: run.id, events: cancelled.events });
    if (!cancelled.finishedNow) cancelRequested.push(run.id);
  }
}
