import { z } from "zod";
import { type PreparedSql, preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";
import { admissionOrder, awaitingAdmission, runAwaitingAdmission } from "./run-lease-statements.ts";

// Admission (runs/admit-runs.ts, docs/design.md "Fair dispatch"): which queued runs of a user are
// handed to the queue, and the limits and usage that decide it.

/** A worker whose presence row is older than this no longer counts for idle slots: three missed refreshes (load-service-status.ts). */
const WORKER_SEEN_WITHIN_SECONDS = 30;

/** A numeric setting's stored value, or `fallback` (the default) when unset or not a number. */
function numericSetting(key: string, fallback: number): string {
  return `COALESCE((SELECT (value::text)::numeric::int FROM settings WHERE key = '${key}' AND jsonb_typeof(value) = 'number'), ${fallback})`;
}

/** What the limits are when neither the user nor a setting sets them. */
export interface LimitDefaults {
  maxActiveRuns: number;
  runsPerDay: number;
  tokensPerDay: number;
}

/** The limits that apply to the user aliased `u`: their own, or the deployment's settings. */
export function userLimitColumns(defaults: LimitDefaults): string {
  return `COALESCE(u.max_active_runs, ${numericSetting("user_max_active_runs", defaults.maxActiveRuns)}) AS max_active_runs,
  COALESCE(u.runs_per_day, ${numericSetting("user_runs_per_day", defaults.runsPerDay)}) AS runs_per_day,
  COALESCE(u.tokens_per_day, ${numericSetting("user_tokens_per_day", defaults.tokensPerDay)}) AS tokens_per_day`;
}

export const userLimitsRow = z.object({ max_active_runs: z.number(), runs_per_day: z.number(), tokens_per_day: z.number() });

/**
 * A run counts as active while it is running, or queued and admitted (handed to the queue, or a
 * started run waiting to resume). Parked runs (awaiting approval) hold nothing and do not count.
 * The two are counted apart, each on its range of the admission index, read in that index's order
 * (admissionOrder says why): the runs waiting for admission behind them are never visited, however
 * many the user has queued.
 */
function runningRunsOf(user: string): string {
  return `(SELECT 1 FROM runs AS r WHERE r.user_id = ${user} AND r.status = 'running' ORDER BY ${admissionOrder("r")})`;
}

/** The user's admitted runs still queued (see runningRunsOf), with their lease versions: 0 for one not started yet. */
function admittedRunsOf(user: string): string {
  return `(SELECT r.lease_version FROM runs AS r WHERE r.user_id = ${user} AND r.status = 'queued' AND r.dispatched_at IS NOT NULL ORDER BY ${admissionOrder("r")})`;
}

/**
 * The CTEs `counts`, `picked` and `admitted`: the user's oldest queued runs that nothing in their
 * chat is ahead of, up to the room their limits leave, marked admitted. `user` names the user,
 * `room` the limits' columns (`max_active_runs`, `max_waiting`): SQL expressions of the statement.
 * Whoever runs them holds the user's row lock (so two admissions of one user cannot both fill the
 * last slot) with a snapshot that sees every admission committed before it.
 *
 * The waiting bound is what keeps dispatch fair while every worker slot is busy. While slots are idle
 * it is raised to their number: a job waits for no one there, and admitting in tens would only
 * trickle a burst of runs to idle workers, a round trip through admission for every ten. The idle
 * slots are those of the workers seen lately (their presence row, refreshed every 10 s) less every
 * active run.
 *
 * Most admissions find nothing to admit (a run ended and the user has no run waiting for admission):
 * they ask that first, on the (user, status, dispatched_at, created_at, id) index, and count nothing
 * then. Every part is a range of an index that holds only what it needs, whatever the user has queued
 * behind: the counts visit the user's active runs (running; queued and admitted), never the runs
 * waiting for admission, and `picked` reads those in the index's order and stops at its limit
 * (admissionOrder says why every part names that order). Sorting thousands of waiting runs under the
 * user's lock at every admission made resuming a backlog quadratic.
 */
function admissionCtes(user: string, room: { from: string; maxActiveRuns: string; maxWaiting: string }, now: string): string {
  // Every count reads its rows in an index's order (see admissionOrder): a plain index scan, which
  // the planner cannot trade for one on another index, and which marks the entries of dead row
  // versions it meets (a bitmap scan visits them again each time, until a vacuum).
  const idleSlots = `GREATEST(0,
    (SELECT COALESCE(sum(w.concurrency), 0) FROM workers AS w WHERE w.last_seen_at > ${now}::timestamptz - interval '${WORKER_SEEN_WITHIN_SECONDS} seconds')
    - (SELECT count(*) FROM (SELECT 1 FROM runs WHERE status = 'running' ORDER BY lease_expires_at) AS running)
    - (SELECT count(*) FROM (SELECT 1 FROM runs WHERE status = 'queued' AND dispatched_at IS NOT NULL ORDER BY dispatched_at) AS admitted))`;
  const waitingBound = `GREATEST(${room.maxWaiting}, ${idleSlots})`;
  return `counts AS (
  SELECT admitted.n + (SELECT count(*) FROM ${runningRunsOf(user)} AS running) AS active,
    admitted.waiting
  FROM (SELECT count(*) AS n, count(*) FILTER (WHERE lease_version = 0) AS waiting FROM ${admittedRunsOf(user)} AS q) AS admitted
),
picked AS (
  SELECT r.id FROM runs AS r
  WHERE ${awaitingAdmission("r", user)}
  ORDER BY ${admissionOrder("r")}
  LIMIT CASE WHEN ${runAwaitingAdmission(user)}
    THEN COALESCE((SELECT GREATEST(0, LEAST(${room.maxActiveRuns} - counts.active, ${waitingBound} - counts.waiting)) FROM ${room.from} counts), 0)
    ELSE 0 END
),
admitted AS (
  -- The picked ids as one array, looked up by key: joined to picked, a plan made while the tables were
  -- nearly empty scanned the whole key index and ran picked again for each entry.
  UPDATE runs SET dispatched_at = ${now} WHERE runs.id = ANY(ARRAY(SELECT id FROM picked))
  RETURNING runs.id, runs.last_event_seq, runs.lease_version, runs.created_at
)`;
}

/** Admission by a caller that took the user's lock in an earlier statement of its transaction ($2 max active runs, $3 max waiting). */
const ADMIT_SQL = preparedSql(
  "admission_admit",
  `WITH ${admissionCtes("$1", { from: "", maxActiveRuns: "$2", maxWaiting: "$3" }, "$4")}
SELECT id, last_event_seq, lease_version, created_at FROM admitted`,
);

const admittedRow = z.object({ id: z.string(), last_event_seq: z.number(), lease_version: z.number(), created_at: z.date() });

export type AdmittedRunRow = z.output<typeof admittedRow>;

/** Oldest first, as the queue should receive them. */
function oldestFirst(rows: AdmittedRunRow[]): AdmittedRunRow[] {
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
}

export async function admitQueuedRunsOfUser(
  runner: SqlRunner,
  input: { userId: string; maxActiveRuns: number; maxWaiting: number; now: Date },
): Promise<AdmittedRunRow[]> {
  return oldestFirst(await queryParsed(runner, ADMIT_SQL, [input.userId, input.maxActiveRuns, input.maxWaiting, input.now], admittedRow));
}

/**
 * Admission in one statement, one round trip: it takes the user's lock (`userId`, or the owner of
 * `runId`) by bumping their `admissions`. A statement that waited for that lock read the user's runs
 * before the admission it waited for committed: it sees so in the row it updated (the other's bump,
 * not in its own snapshot), admits nothing and answers `fresh` false, and the caller admits in a
 * transaction that takes the lock first (admit-runs.ts). `found` false: no such user or run, or
 * nothing of theirs waits for admission; then no lock was taken either. Most rounds (after a run
 * ended or parked) find nothing waiting: they must not queue on the lock behind the rounds that admit.
 * A run created after this statement's snapshot is admitted by its creation's own round.
 */
const admitAloneSql = (defaults: LimitDefaults) =>
  preparedSql(
    "admission_admit_alone",
    `
WITH locked AS (
  UPDATE users AS u SET admissions = u.admissions + 1
  WHERE u.id = COALESCE($1::text, (SELECT user_id FROM runs WHERE id = $2::text))
    AND ${runAwaitingAdmission("u.id")}
  RETURNING u.id, u.admissions, ${userLimitColumns(defaults)}
),
owner AS (
  SELECT locked.id, locked.max_active_runs FROM locked WHERE locked.admissions = (SELECT admissions FROM users WHERE id = locked.id) + 1
),
${admissionCtes("(SELECT id FROM owner)", { from: "owner,", maxActiveRuns: "owner.max_active_runs", maxWaiting: "$3" }, "$4")}
SELECT EXISTS (SELECT 1 FROM locked) AS found, EXISTS (SELECT 1 FROM owner) AS fresh,
  COALESCE((SELECT json_agg(json_build_object('id', id, 'last_event_seq', last_event_seq, 'lease_version', lease_version, 'created_at', created_at)) FROM admitted), '[]') AS admitted`,
  );

let admitAloneStatement: PreparedSql | undefined;

const admittedAloneRow = z.object({
  found: z.boolean(),
  fresh: z.boolean(),
  admitted: z.array(admittedRow.extend({ created_at: z.coerce.date() })),
});

export async function admitQueuedRunsAlone(
  runner: SqlRunner,
  input: { userId?: string; runId?: string; maxWaiting: number; now: Date; defaults: LimitDefaults },
): Promise<{ found: boolean; fresh: boolean; admitted: AdmittedRunRow[] }> {
  admitAloneStatement ??= admitAloneSql(input.defaults);
  const [row] = await queryParsed(runner, admitAloneStatement, [input.userId ?? null, input.runId ?? null, input.maxWaiting, input.now], admittedAloneRow);
  if (!row) return { found: false, fresh: true, admitted: [] };
  return { ...row, admitted: oldestFirst(row.admitted) };
}

const lockedUserRow = userLimitsRow.extend({ user_id: z.string() });

let lockUserStatement: PreparedSql | undefined;

/**
 * Locks the row of the user (`userId`, or the owner of `runId`), serializing their admissions and
 * the creations that check a quota, and reads the limits that apply. The lock is taken by bumping
 * `admissions`, so that a one-statement admission that waited for it knows its read is stale
 * (admitQueuedRunsAlone). An update of no key column takes the NO KEY UPDATE lock, not UPDATE: the
 * run a creating transaction inserted holds a KEY SHARE lock on the same row (its foreign key), and
 * two creations each holding one and asking for UPDATE would deadlock.
 */
export async function lockUserLimits(
  runner: SqlRunner,
  input: { userId?: string; runId?: string; defaults: LimitDefaults },
): Promise<z.output<typeof lockedUserRow> | undefined> {
  lockUserStatement ??= preparedSql(
    "admission_lock_user",
    `UPDATE users AS u SET admissions = u.admissions + 1
    WHERE u.id = COALESCE($1::text, (SELECT user_id FROM runs WHERE id = $2::text))
    RETURNING u.id AS user_id, ${userLimitColumns(input.defaults)}`,
  );
  const [row] = await queryParsed(runner, lockUserStatement, [input.userId ?? null, input.runId ?? null], lockedUserRow);
  return row;
}

const usageRow = z.object({ active_runs: z.number(), runs_today: z.number(), tokens_today: z.number() });

export type UserUsageRow = z.output<typeof usageRow>;

/** How many of `user`'s runs are active, counted as admission counts them (runningRunsOf, admittedRunsOf). */
function activeRunCount(user: string): string {
  return `(SELECT count(*) FROM ${runningRunsOf(user)} AS running) + (SELECT count(*) FROM ${admittedRunsOf(user)} AS admitted)`;
}

/**
 * The user's active runs and what their runs created since `dayStart` counted (runs, model tokens), as
 * the user and the admins see them (users/user-usage.ts). The day's counts are exact, so they visit
 * every run of the day, queued or not: a quota check asks selectUserDailyUsage instead.
 */
export async function selectUserUsage(runner: SqlRunner, input: { userId: string; dayStart: Date }): Promise<UserUsageRow> {
  const [row] = await queryParsed(
    runner,
    `SELECT
      (${activeRunCount("$1")})::int AS active_runs,
      (SELECT count(*) FROM runs WHERE user_id = $1 AND created_at >= $2)::int AS runs_today,
      (SELECT COALESCE(sum(input_tokens + output_tokens), 0) FROM runs WHERE user_id = $1 AND created_at >= $2)::float8 AS tokens_today`,
    [input.userId, input.dayStart],
    usageRow,
  );
  return row ?? { active_runs: 0, runs_today: 0, tokens_today: 0 };
}

const dailyUsageRow = usageRow.omit({ active_runs: true });

export type UserDailyUsageRow = z.output<typeof dailyUsageRow>;

/**
 * What a daily quota check needs of the user's runs created since `dayStart`, and no more: a run's
 * creation (runs and tokens, under the user's lock) and each round of a run with a token quota
 * (tokens only) ask it. The day's runs are counted up to `countRunsUpTo` (0: not counted): a caller
 * compares the count with a limit, so counting one past it answers the same, and a user whose day
 * holds thousands of queued runs costs their quota, not their backlog. They are read in the order of
 * the (user_id, created_at) index, so that no plan reads the table until it has found enough. The
 * tokens are summed only with `sumTokens`; that sum still reads every run of the day, the queued ones
 * too (they hold no tokens, but no index tells them apart from the day's other runs).
 */
export async function selectUserDailyUsage(
  runner: SqlRunner,
  input: { userId: string; dayStart: Date; countRunsUpTo: number; sumTokens: boolean },
): Promise<UserDailyUsageRow> {
  const [row] = await queryParsed(
    runner,
    `SELECT
      (SELECT count(*) FROM (SELECT 1 FROM runs WHERE user_id = $1 AND created_at >= $2 ORDER BY created_at LIMIT $3) AS today)::int AS runs_today,
      (SELECT COALESCE(sum(input_tokens + output_tokens), 0) FROM runs WHERE $4 AND user_id = $1 AND created_at >= $2)::float8 AS tokens_today`,
    [input.userId, input.dayStart, Math.max(0, input.countRunsUpTo), input.sumTokens],
    dailyUsageRow,
  );
  return row ?? { runs_today: 0, tokens_today: 0 };
}

const userIdRow = z.object({ user_id: z.string() });

/**
 * Users with a queued run waiting for admission that nothing in its chat is ahead of (the sweep's
 * safety net): one probe of the admission index per user, not a visit of every run waiting.
 */
export async function selectUsersAwaitingAdmission(runner: SqlRunner, input: { limit: number }): Promise<string[]> {
  const rows = await queryParsed(
    runner,
    `SELECT u.id AS user_id FROM users AS u
    WHERE ${runAwaitingAdmission("u.id")}
    LIMIT $1`,
    [input.limit],
    userIdRow,
  );
  return rows.map((row) => row.user_id);
}
