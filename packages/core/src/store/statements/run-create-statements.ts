import { z } from "zod";
import type { RunStatus } from "../generated/enums.ts";
import type { RequestCaller } from "../../users/user.ts";
import { type PreparedSql, preparedSql, queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";
import { type LimitDefaults, userLimitColumns } from "./admission-statements.ts";
import { authenticatedUserRow, callerJsonSql, callerParameters, requestCallerSql } from "./user-statements.ts";
import { webhookDeliveryInsert } from "./webhook-statements.ts";

// Creating a run (runs/create-run.ts): the locks that serialize creation, the chat's active runs, and
// the run with its first event in one statement. Every run starts here: all prepared.

/** Serializes concurrent requests with the same key (they may name different chats). */
const KEY_LOCK_SQL = preparedSql("run_create_key_lock", "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))");

/** Takes the transaction-scoped advisory lock named `key` (released at commit or rollback). */
export async function lockIdempotencyKey(runner: SqlRunner, key: string): Promise<void> {
  await queryRowCount(runner, KEY_LOCK_SQL, [key]);
}

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

const lockedChatRow = z.object({ chat_id: z.string().nullable(), existing_run_id: z.string().nullable() });

/** Always one row: `chat_id` null when the user has no such chat, `existing_run_id` null when no live key names a run. */
export async function lockChatForRunCreation(
  runner: SqlRunner,
  input: { chatId: string; userId: string; idempotencyKey: string | null; now: Date },
): Promise<z.output<typeof lockedChatRow> | undefined> {
  const [row] = await queryParsed(runner, LOCK_CHAT_SQL, [input.chatId, input.userId, input.idempotencyKey, input.now], lockedChatRow);
  return row;
}

/** The chat's active runs, oldest first: the ones an interrupt cancels. */
const ACTIVE_RUNS_SQL = preparedSql("run_create_active", `SELECT id FROM runs WHERE chat_id = $1 AND status = ANY($2::"RunStatus"[]) ORDER BY created_at, id`);

const runIdRow = z.object({ id: z.string() });

/** The chat's runs in one of `statuses`, oldest first. */
export async function selectRunsOfChatInStatuses(
  runner: SqlRunner,
  input: { chatId: string; statuses: readonly RunStatus[] },
): Promise<z.output<typeof runIdRow>[]> {
  return queryParsed(runner, ACTIVE_RUNS_SQL, [input.chatId, input.statuses], runIdRow);
}

/**
 * The multitask rule and the new run in one statement: the chat's lock, the chat's active runs (after
 * any interrupt, so only runs still being stopped by their worker), the run row unless "reject" ($12)
 * finds one, its `run.queued` event with seq 1, and the idempotency key ($14 null: none) pointing at
 * it. The runs still active are the ones the new run must wait for.
 *
 * The chat's lock is taken by bumping its `runs_created`, in the statement itself, so that a run is
 * created in one round trip. A statement that waited for that lock read the chat's runs before the
 * creation it waited for committed: it sees so in the row it updated (the other creation's bump, not
 * in its own snapshot), creates nothing and answers `fresh` false, and the caller creates in a
 * transaction that takes the lock first. A caller already holding the chat's lock is always fresh.
 *
 * Over a daily quota decides only a check under the user's lock: unless the caller holds it ($16
 * true), a user with a quota gets no run and `quota_free` false, and the caller takes that path.
 *
 * The caller is the user $4 (authenticated already), or the enabled user of the API token whose hash
 * is $18: then this statement is the request's authentication (POST /api/chats/:id/runs), one round
 * trip instead of two, and a token that stopped working finds no caller, as it would in the
 * middleware (users/user-store.ts). No caller: no row, nothing written.
 *
 * The run is stamped after every active run of the chat (at least 1 ms, the column's precision),
 * so the chat's order `(created_at, id)`, which workers follow (NOTHING_AHEAD_IN_CHAT), is the
 * order of these commits under the chat's lock. With the request's clock alone, runs created in
 * the same millisecond (or on API instances whose clocks differ) were ordered by their random ids:
 * the run that was runnable when it committed, and so got the job, could sort behind a later one,
 * and the chat stalled until the reconciler stepped in.
 */
const createSql = (limitDefaults: LimitDefaults) =>
  preparedSql(
    "run_create",
    `
WITH caller AS MATERIALIZED (
  ${requestCallerSql("$4", "$18")}
),
chat AS (
  UPDATE chats SET runs_created = runs_created + 1 WHERE id = $1 AND user_id = (SELECT id FROM caller) RETURNING runs_created
),
fresh AS (
  SELECT 1 FROM chat WHERE chat.runs_created = (SELECT runs_created FROM chats WHERE id = $1) + 1
),
limits AS (
  SELECT u.id, ${userLimitColumns(limitDefaults)} FROM users AS u WHERE u.id = (SELECT id FROM caller)
),
active AS (
  SELECT id, created_at FROM runs WHERE chat_id = $1 AND status = ANY($2::"RunStatus"[])
),
stamp AS (
  SELECT GREATEST($11::timestamptz, (SELECT max(created_at) FROM active) + interval '1 millisecond') AS at
),
created AS (
  INSERT INTO runs (id, chat_id, user_id, status, input, model, mode, allow_bash, allow_web_search, use_web, tools, last_event_seq, created_at, updated_at)
  SELECT $3, $1, limits.id, 'queued', $5, $6, $7::"RunMode", $8, $9, $10, $17::text[], 1, stamp.at, stamp.at FROM stamp, limits
  WHERE EXISTS (SELECT 1 FROM fresh)
    AND ($16::boolean OR (limits.runs_per_day = 0 AND limits.tokens_per_day = 0))
    AND (NOT $12::boolean OR NOT EXISTS (SELECT 1 FROM active))
  RETURNING id, created_at
),
queued_event AS (
  INSERT INTO run_events (run_id, seq, type, data, created_at)
  SELECT id, 1, 'run.queued', $13::jsonb, created_at FROM created
),
queued_hook AS (
  ${webhookDeliveryInsert(`(SELECT id AS run_id, (SELECT id FROM caller) AS user_id, 1 AS first_seq, jsonb_build_array(jsonb_build_object('type', 'run.queued')) AS events, created_at AS now FROM created)`)}
),
remembered_key AS (
  INSERT INTO idempotency_keys (user_id, key, run_id, expires_at)
  SELECT (SELECT id FROM caller), $14, id, $15 FROM created WHERE $14::text IS NOT NULL
  ON CONFLICT (user_id, key) DO UPDATE SET run_id = EXCLUDED.run_id, expires_at = EXCLUDED.expires_at
)
SELECT (SELECT created_at FROM created) AS created_at,
  EXISTS (SELECT 1 FROM chat) AS chat_found,
  EXISTS (SELECT 1 FROM fresh) AS fresh,
  ($16::boolean OR (limits.runs_per_day = 0 AND limits.tokens_per_day = 0)) AS quota_free,
  (SELECT id FROM active ORDER BY created_at, id LIMIT 1) AS first_active_id,
  (SELECT count(*) FROM active)::int AS blocking_runs,
  limits.runs_per_day, limits.tokens_per_day,
  (SELECT ${callerJsonSql("caller")} FROM caller) AS caller
FROM limits`,
  );

let createStatement: PreparedSql | undefined;

const createdRunRow = z.object({
  /** Null: nothing created (see the other columns for why). */
  created_at: z.date().nullable(),
  /** False: the user has no such chat. */
  chat_found: z.boolean(),
  /** False: the statement waited for another creation in the chat and read the chat before it. */
  fresh: z.boolean(),
  /** False: a daily quota applies and the caller does not hold the user's lock to check it. */
  quota_free: z.boolean(),
  /** The chat's oldest active run ("reject" refused the new run when created_at is null and the rest holds). */
  first_active_id: z.string().nullable(),
  blocking_runs: z.number(),
  /** The user's daily quotas (0: none), read without their lock: a caller holding the chat's takes it only when one applies. */
  runs_per_day: z.number(),
  tokens_per_day: z.number(),
  /** The user the statement created for: $4's, or the token's. */
  caller: authenticatedUserRow,
});

/** What a run is asked to do: the message, the model, and the switches that decide its tools. */
export interface RunRequest {
  input: string;
  model: string;
  mode: "agent" | "guide";
  allowBash: boolean;
  allowWebSearch: boolean;
  useWeb: boolean;
  /** The only tools the run may be offered (still subject to the switches and policy); empty: no such limit. */
  tools: readonly string[];
}

export interface InsertQueuedRunInput extends RunRequest {
  runId: string;
  chatId: string;
  /** The user, or the hash of the request's bearer token (users/api-token.ts) to find them by. */
  caller: RequestCaller;
  /** The statuses of the runs the new one waits for (and that "reject" refuses it for). */
  activeStatuses: readonly RunStatus[];
  now: Date;
  /** Multitask "reject": no run is created while the chat has an active one. */
  rejectIfActive: boolean;
  /** The data of the `run.queued` event. */
  queuedEventData: Record<string, unknown>;
  idempotencyKey: string | null;
  idempotencyExpiresAt: Date;
  /** The limits' defaults (settings unset), as admission-statements.ts userLimitColumns takes them. */
  limitDefaults: LimitDefaults;
  /** The caller checks the user's daily quotas under their lock after this statement, in its transaction. */
  quotaChecked: boolean;
}

/**
 * One row (none only when there is no such caller: a user that no longer exists, a token that does
 * not work): `created_at` null when nothing was created,
 * `first_active_id` naming the run in the way when "reject" refused; `blocking_runs` counts the active
 * runs the new one waits for.
 */
export async function insertQueuedRun(runner: SqlRunner, input: InsertQueuedRunInput): Promise<z.output<typeof createdRunRow> | undefined> {
  createStatement ??= createSql(input.limitDefaults);
  const { userId, tokenHash } = callerParameters(input.caller);
  const [row] = await queryParsed(
    runner,
    createStatement,
    [
      input.chatId,
      input.activeStatuses,
      input.runId,
      userId,
      input.input,
      input.model,
      input.mode,
      input.allowBash,
      input.allowWebSearch,
      input.useWeb,
      input.now,
      input.rejectIfActive,
      JSON.stringify(input.queuedEventData),
      input.idempotencyKey,
      input.idempotencyExpiresAt,
      input.quotaChecked,
      input.tools,
      tokenHash,
    ],
    createdRunRow,
  );
  return row;
}
