import { z } from "zod";
import { RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";
import { RUN_CONTEXT_COLUMNS, RUN_CONTEXT_JOINS, runContextJson, runContextRow } from "./run-context-statements.ts";

// A worker's lease on a run (runs/run-lease.ts): taking it, renewing it, giving it back, and the
// chat's next run to hand on.

/**
 * The chat-ordering rule, as a condition on the run aliased `run`: no other run of its chat is
 * running or parked, and none is queued ahead of it. Runs of a chat execute one at a time, in order
 * (multitask "enqueue"); acquiring, reconciling (reconcile-statements.ts) and handing the chat on
 * when a run finishes (store/run-statement.ts) all use this one definition. `besides` leaves one run
 * out: the finishing run, which the statement that finishes it still sees as active.
 *
 * A subquery with a LIMIT, evaluated for each run it is asked of, rather than NOT EXISTS, which the
 * planner may turn into a join: generic plans made while the tables were nearly empty joined with a
 * scan of a whole chat index (every run's entry) for each run, or intersected the chat index with the
 * status index. A subquery looks the chat's runs up by its chat_id, on a (chat_id, ...) index,
 * whatever the estimates; the first status test repeats what the second implies.
 */
export function nothingAheadInChat(run: string, besides?: string): string {
  return `(SELECT 1 FROM runs AS o
  WHERE o.chat_id = ${run}.chat_id AND o.status IN ('running', 'awaiting_approval', 'queued')
    AND o.id <> ${run}.id${besides ? ` AND o.id <> ${besides}` : ""}
    AND (o.status IN ('running', 'awaiting_approval') OR (o.status = 'queued' AND (o.created_at, o.id) < (${run}.created_at, ${run}.id)))
  LIMIT 1) IS NULL`;
}

export const NOTHING_AHEAD_IN_CHAT = nothingAheadInChat("r");

/**
 * The run aliased `run` is one of `user`'s that admission would pick (admission-statements.ts), whatever
 * their limits leave room for: queued, not admitted, nothing ahead of it in its chat. On the
 * (user_id, status, dispatched_at, created_at, id) index, in whose order admissionOrder reads them.
 */
export function awaitingAdmission(run: string, user: string): string {
  return `${run}.user_id = ${user} AND ${run}.status = 'queued' AND ${run}.dispatched_at IS NULL AND ${nothingAheadInChat(run)}`;
}

/**
 * The order of the (user_id, status, dispatched_at, created_at, id) index, for the run aliased `run`,
 * once user_id and status are fixed: oldest first among the runs waiting for admission (dispatched_at
 * null in all of them). A statement that reads a user's runs of one status in this order can only be
 * served without a sort by that index. Which is why the statements below say it even where the order
 * does not matter: they are prepared once per connection (store/create-prisma-client.ts), often while
 * the tables are nearly empty, and with every index then estimated to find one row, the planner took
 * the one with the fewest conditions, (user_id, created_at), which reads every run the user ever had.
 */
export function admissionOrder(run: string, direction: "ASC" | "DESC" = "ASC"): string {
  return `${run}.dispatched_at ${direction}, ${run}.created_at ${direction}, ${run}.id ${direction}`;
}

/**
 * Whether `user` has a run waiting for admission: looked up in the index, newest first. The oldest
 * entries of that range are those of runs admitted since the last vacuum (their row versions before
 * admission, dead): read oldest first, the lookup stepped over all of them (60 index pages once
 * 2,000 runs had been admitted) at every take of a run.
 */
export function runAwaitingAdmission(user: string, alias = "c"): string {
  return `(SELECT ${alias}.id FROM runs AS ${alias} WHERE ${awaitingAdmission(alias, user)} ORDER BY ${admissionOrder(alias, "DESC")} LIMIT 1) IS NOT NULL`;
}

/** Whether the user of the run aliased `r` has a run waiting for admission. */
const ADMISSION_AWAITED = runAwaitingAdmission("r.user_id", "a");

// The run's context is read in the statement that takes it: the step a resumed run waits on most is
// a round trip, so taking and loading are one. The context's subqueries see the tables as they were
// before the UPDATE, which changes none of what they read; the run's own columns come from the taken row.
const TAKE_LEASE_SQL = preparedSql(
  "run_acquire",
  `
WITH previous AS (SELECT id, status, started_at FROM runs WHERE id = $1 FOR UPDATE),
taken AS (
  UPDATE runs AS r SET
    lease_version = r.lease_version + 1,
    lease_owner = $2,
    lease_expires_at = now() + make_interval(secs => $3),
    status = 'running',
    started_at = coalesce(r.started_at, now()),
    updated_at = now()
  FROM previous
  -- r.id = $1 as well: joined on previous.id alone, the planner scanned every run for the filters below.
  WHERE r.id = $1 AND r.id = previous.id
    AND r.status IN ('queued', 'running')
    AND r.dispatched_at IS NOT NULL
    AND (r.lease_expires_at IS NULL OR r.lease_expires_at < now())
    AND ${NOTHING_AHEAD_IN_CHAT}
  RETURNING r.*, previous.status::text AS previous_status, previous.started_at AS previous_started)
SELECT r.lease_version, r.previous_status, r.previous_started, ${ADMISSION_AWAITED} AS admission_awaited, ${RUN_CONTEXT_COLUMNS}
FROM taken AS r
${RUN_CONTEXT_JOINS}`,
);

// The contexts of runs just admitted, to start them with no take (runs/new-run-start.ts): one read for
// a round's runs, after the admission's commit (not under the user's lock, which every admission and
// creation of theirs waits for), as JSON text for the offers that carry them. `admission_awaited` as a
// take reads it: the user has runs waiting for admission besides those admitted.
const NEW_RUN_CONTEXTS_SQL = preparedSql(
  "run_contexts_to_start",
  `SELECT admitted.id, ${runContextJson("admitted.id")} AS context, ${runAwaitingAdmission("admitted.user_id", "a")} AS admission_awaited
FROM runs AS admitted
WHERE admitted.id = ANY($1::text[]) AND admitted.status = 'queued'`,
);

const newRunContextRow = z.object({ id: z.string(), context: z.string(), admission_awaited: z.boolean() });

/** The contexts of `runIds` as JSON text (RUN_CONTEXT_COLUMNS), with whether their users have runs waiting for admission; a missing run has no row. */
export async function selectNewRunContexts(runner: SqlRunner, runIds: readonly string[]): Promise<z.output<typeof newRunContextRow>[]> {
  return queryParsed(runner, NEW_RUN_CONTEXTS_SQL, [runIds], newRunContextRow);
}

const takenLeaseRow = runContextRow.extend({
  lease_version: z.number(),
  previous_status: z.enum(RunStatus),
  previous_started: z.date().nullable(),
  /** As of the statement's snapshot: a run created since then is admitted by its creation's own round. */
  admission_awaited: z.boolean(),
});

/**
 * Takes the run for `owner` (status `running`, the lease version bumped) and reads its context
 * (run-context-statements.ts) in the same statement, unless it is not queued or running, a live
 * lease is held, or an earlier run of its chat is active: then no row. `admission_awaited`: the
 * user has runs that admission would pick now that this one no longer waits.
 */
export async function takeRunLease(
  runner: SqlRunner,
  input: { runId: string; owner: string; leaseSeconds: number },
): Promise<z.output<typeof takenLeaseRow> | undefined> {
  const [row] = await queryParsed(runner, TAKE_LEASE_SQL, [input.runId, input.owner, input.leaseSeconds], takenLeaseRow);
  return row;
}

const leaseStateRow = z.object({
  status: z.enum(RunStatus),
  lease_expires_at: z.date().nullable(),
  /** The expiry compared with the database's clock, which set it. */
  lease_held: z.boolean(),
});

/** The run's status and lease expiry (why a take was refused); no row: no such run. */
export async function selectRunLeaseState(runner: SqlRunner, runId: string): Promise<z.output<typeof leaseStateRow> | undefined> {
  const [row] = await queryParsed(
    runner,
    "SELECT status::text AS status, lease_expires_at, COALESCE(lease_expires_at > now(), false) AS lease_held FROM runs WHERE id = $1",
    [runId],
    leaseStateRow,
  );
  return row;
}

const returnedRunRow = z.object({ lease_version: z.number() });

/**
 * Unleases a run a decision handed to a worker that did not take it (runs/resume-handover.ts), as the
 * decision would have left it without a worker to hand it to, while that handover's lease version holds
 * and the run is still queued (the execution's first commit makes it running). The version is bumped:
 * should the offer reach its worker after all, that worker's first commit finds the run taken from it.
 * The new version, or undefined when the lease no longer holds.
 */
export async function returnHandedRun(runner: SqlRunner, input: { runId: string; leaseVersion: number }): Promise<number | undefined> {
  const [row] = await queryParsed(
    runner,
    `UPDATE runs SET lease_expires_at = NULL, lease_owner = NULL, lease_version = lease_version + 1
    WHERE id = $1 AND lease_version = $2 AND status = 'queued'
    RETURNING lease_version`,
    [input.runId, input.leaseVersion],
    returnedRunRow,
  );
  return row?.lease_version;
}

/** Clears the lease of the run if `leaseVersion` still holds it; returns the rows changed (0 or 1). */
export async function clearRunLease(runner: SqlRunner, input: { runId: string; leaseVersion: number }): Promise<number> {
  return queryRowCount(runner, "UPDATE runs SET lease_expires_at = NULL, lease_owner = NULL WHERE id = $1 AND lease_version = $2", [
    input.runId,
    input.leaseVersion,
  ]);
}

const renewedLeaseRow = z.object({ id: z.string(), cancel_requested: z.boolean() });

// The renewal never waits for a row lock: a run whose row another transaction holds at this moment (a
// step commit of this worker, a cancel request) is skipped, not extended this time, and reported as
// held as of the statement's snapshot; the next renewal, a third of a lease later, extends it. Waiting
// instead made a deadlock: the renewal locks up to a worker's every run, in its own order, while the
// worker's group commit locks a batch of the same rows in another, and Postgres found the cycle only
// after deadlock_timeout (1 s), stopping every step commit of the worker for that second and failing
// the commit's batch (five times in a day's 3,000-run W1 and 10,000-run PARKED benches, December
// 2026). A statement that waits for no lock cannot be part of a cycle.
/** A run of `runs AS r` whose lease the worker still holds, as `held` (the statement's input) lists it. */
const STILL_HELD = "r.id = ANY($2::text[]) AND r.lease_version = held.version AND r.lease_owner = held.owner";

const EXTEND_LEASES_SQL = preparedSql(
  "run_leases_extend",
  `
WITH held AS (SELECT * FROM unnest($2::text[], $3::int[], $4::text[]) AS h(id, version, owner)),
free AS (
  SELECT r.id FROM runs AS r JOIN held ON r.id = held.id
  WHERE ${STILL_HELD}
  FOR NO KEY UPDATE OF r SKIP LOCKED
),
renewed AS (
  UPDATE runs SET lease_expires_at = now() + make_interval(secs => $1)
  WHERE runs.id = ANY(ARRAY(SELECT id FROM free))
  RETURNING runs.id, runs.cancel_requested
)
SELECT id, cancel_requested FROM renewed
UNION ALL
SELECT r.id, r.cancel_requested FROM runs AS r JOIN held ON r.id = held.id
WHERE ${STILL_HELD} AND r.id <> ALL(ARRAY(SELECT id FROM free))`,
);

/**
 * Extends every lease still held (same version and owner) by `leaseSeconds` from now, in one
 * statement that waits for no lock; returns the runs still held with their cancel flag (a run
 * another transaction had locked is among them, its lease left for the next renewal).
 */
export async function extendRunLeases(
  runner: SqlRunner,
  input: { leaseSeconds: number; leases: readonly { runId: string; leaseVersion: number; owner: string }[] },
): Promise<z.output<typeof renewedLeaseRow>[]> {
  return queryParsed(
    runner,
    EXTEND_LEASES_SQL,
    [input.leaseSeconds, input.leases.map((lease) => lease.runId), input.leases.map((lease) => lease.leaseVersion), input.leases.map((lease) => lease.owner)],
    renewedLeaseRow,
  );
}
