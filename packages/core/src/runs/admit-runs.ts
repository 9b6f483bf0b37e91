import type pg from "pg";
import type { Clock } from "../clock.ts";
import { NUMERIC_SETTINGS } from "../settings/agent-settings.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { type AdmittedRunRow, admitQueuedRunsAlone, admitQueuedRunsOfUser, lockUserLimits } from "../store/statements/admission-statements.ts";
import { selectNewRunContexts } from "../store/statements/run-lease-statements.ts";
import { type NewRunStart, newRunStart } from "./new-run-start.ts";
import type { LoopLogger, RunGeneration } from "./run-loop-dependencies.ts";

/**
 * Admitted runs of one user that are not yet taken by a worker, at most. This bound is what makes
 * dispatch fair: the queue (BullMQ, first in first out) never holds more than this many jobs of one
 * user, so another user's new run waits behind at most this many of theirs, whatever their backlog.
 * Large enough that one user alone keeps every slot fed: the jobs waiting are refilled each time a
 * run of theirs ends, parks or is created. Default 10.
 */
export const ADMITTED_WAITING_PER_USER = 10;

/** The defaults of the limit settings (used when no settings row overrides them). */
export const LIMIT_DEFAULTS = {
  maxActiveRuns: NUMERIC_SETTINGS.user_max_active_runs.default,
  runsPerDay: NUMERIC_SETTINGS.user_runs_per_day.default,
  tokensPerDay: NUMERIC_SETTINGS.user_tokens_per_day.default,
} as const;

/** Whose runs to admit: a user, or the owner of a run. */
export type AdmissionOwner = { userId: string } | { runId: string };

/** A run admission handed on: the caller enqueues it after the commit. */
export interface AdmittedRun {
  id: string;
  generation: RunGeneration;
  /** Its context, read after the admission: a worker starts it with no take (new-run-start.ts). */
  start?: NewRunStart;
}

/**
 * One-statement admissions tried before the transaction. A statement that waited for another
 * admission's lock read stale and admits nothing; trying again reads fresh unless yet another
 * admission got in first. The transaction holds the user's lock across four round trips, and under
 * contention (the API's creations and a worker's ends at once) every admission then queued behind
 * it: a few more single statements are cheaper. Default 3.
 */
const ADMISSION_STATEMENT_ATTEMPTS = 3;

/**
 * Admits the user's queued runs their limits leave room for, oldest first: in one statement, or,
 * when that statement waited for another admission of the user and read their runs before it (again
 * and again), in a transaction that takes the user's lock first.
 */
async function admitRuns(pool: pg.Pool, owner: AdmissionOwner, now: Date): Promise<AdmittedRun[]> {
  for (let attempt = 0; attempt < ADMISSION_STATEMENT_ATTEMPTS; attempt++) {
    const alone = await admitQueuedRunsAlone(pool, { ...owner, maxWaiting: ADMITTED_WAITING_PER_USER, now, defaults: LIMIT_DEFAULTS });
    if (!alone.found) return [];
    if (alone.fresh) return alone.admitted.map(admittedRun);
  }
  return inSqlTransaction(pool, (client) => admitRunsInTransaction(client, owner, now));
}

function admittedRun(row: AdmittedRunRow): AdmittedRun {
  return { id: row.id, generation: { lastEventSeq: row.last_event_seq, leaseVersion: row.lease_version } };
}

/** Admission inside a transaction: locks the user's row, then marks the runs admitted (`dispatched_at`). */
async function admitRunsInTransaction(client: pg.PoolClient, owner: AdmissionOwner, now: Date): Promise<AdmittedRun[]> {
  const applied = await lockUserLimits(client, { ...owner, defaults: LIMIT_DEFAULTS });
  if (!applied) return [];
  const rows = await admitQueuedRunsOfUser(client, {
    userId: applied.user_id,
    maxActiveRuns: applied.max_active_runs,
    maxWaiting: ADMITTED_WAITING_PER_USER,
    now,
  });
  return rows.map(admittedRun);
}

export interface DispatchDependencies {
  prisma: PrismaClient;
  clock: Clock;
  logger: LoopLogger;
  /**
   * Hands one admitted run on (offered to a worker, or RunQueue.schedule); a failure leaves it to the
   * reconciler. `start`: its context, for a worker to start it with no take (new-run-start.ts).
   */
  schedule(runId: string, generation: RunGeneration, start?: NewRunStart): Promise<void>;
  /** Whether to read the admitted runs' contexts: only when they are to be offered to a worker. Default never. */
  startsWithContext?: () => boolean;
}

/**
 * Admits what the user's limits allow now and hands it to the queue. Called when a run of the user
 * ends or parks (a slot freed), when the chat's next run is unblocked, and by the sweep. A run
 * admitted here whose enqueue fails is admitted in Postgres: the reconciler enqueues it later.
 *
 * The admitted runs are enqueued at once, not one after another: while Redis cannot take a job (a
 * cluster's slot between its master's death and a replica's takeover), each enqueue waits out its
 * timeout, and a round of ten runs one by one held its requests (and the next round's) for ten
 * timeouts. The calls are made in admission order, so one connection still sends them oldest first.
 */
export async function dispatchRunsOfUser(
  dependencies: DispatchDependencies,
  owner: AdmissionOwner,
  /** Called once the admission is committed, before the enqueues (admission-rounds.ts starts the next round then). */
  onAdmitted?: () => void,
): Promise<AdmittedRun[]> {
  const pool = sqlPoolOf(dependencies.prisma);
  const admitted = await admitRuns(pool, owner, dependencies.clock());
  onAdmitted?.();
  if (admitted.length > 0 && dependencies.startsWithContext?.()) await readStarts(pool, admitted, dependencies.logger);
  await Promise.all(
    admitted.map((run) =>
      dependencies.schedule(run.id, run.generation, run.start).catch((error: unknown) => {
        dependencies.logger.warn({ run_id: run.id, err: error }, "could not enqueue an admitted run; the reconciler will");
      }),
    ),
  );
  return admitted;
}

/**
 * Reads the admitted runs' contexts in one statement, for their workers to start them with no take
 * (new-run-start.ts): one read for a round's runs instead of a take each. A run the read does not find
 * queued (a cancel came first), or whose context is too long for an offer, is offered without one, as
 * is every run when the read fails: its worker takes it as before.
 */
async function readStarts(pool: pg.Pool, admitted: AdmittedRun[], logger: LoopLogger): Promise<void> {
  const rows = await selectNewRunContexts(
    pool,
    admitted.map((run) => run.id),
  ).catch((error: unknown) => {
    logger.warn({ err: error, runs: admitted.length }, "could not read the admitted runs' contexts; their workers take them");
    return [];
  });
  const contexts = new Map(rows.map((row) => [row.id, row]));
  for (const run of admitted) {
    const row = contexts.get(run.id);
    const start = row ? newRunStart(row.context, row.admission_awaited) : null;
    if (start) run.start = start;
  }
}
