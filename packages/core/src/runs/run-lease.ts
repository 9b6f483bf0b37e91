import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import { clearRunLease, extendRunLeases, returnHandedRun, selectRunLeaseState, takeRunLease } from "../store/statements/run-lease-statements.ts";
import { type RunContext, runContextOf } from "./load-run-context.ts";
import type { RunGeneration } from "./run-loop-dependencies.ts";
import type { ExecuteRunInput } from "./loop/run-execution.ts";
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
  /**
   * `context`: the run as the statement that took it read it (executeRun needs no read of its own).
   * `admissionAwaited`: the user has runs admission would pick (the take left one fewer waiting).
   * `leaseOnFirstCommit`: not taken yet; the execution's first commit takes the lease (runs/new-run-start.ts).
   * `decisionOnFirstCommit`: the decision the first commit records (runs/approval-decision-record.ts).
   */
  | {
      kind: "acquired";
      lease: RunLease;
      context: RunContext;
      admissionAwaited: boolean;
      leaseOnFirstCommit?: boolean;
      decisionOnFirstCommit?: ExecuteRunInput["decisionOnFirstCommit"];
    }
  /** Another worker holds a live lease: try again once it may have expired. */
  | { kind: "lease_held"; retryAt: Date }
  /** An earlier run of the same chat is still active: the run is started when that one ends. */
  | { kind: "blocked" }
  /** Finished, parked, or gone: nothing to do. */
  | { kind: "not_executable"; status: RunStatus | null };

/**
 * Takes a run for a worker: one conditional UPDATE that bumps the fencing version, so whoever held
 * the run before can no longer write (its version is stale), and that refuses while a live lease is
 * held or an earlier run of the chat is still active (NOTHING_AHEAD_IN_CHAT). The statements
 * (store/statements/run-lease-statements.ts) run on the client's pg pool (store/sql-pool.ts): every
 * execution starts with one, which also reads the run's context.
 */
export async function acquireRun(prisma: PrismaClient, input: { runId: string; owner: string; leaseMs: number }): Promise<AcquireOutcome> {
  const pool = sqlPoolOf(prisma);
  const row = await takeRunLease(pool, { runId: input.runId, owner: input.owner, leaseSeconds: input.leaseMs / 1000 });
  if (row) {
    return {
      kind: "acquired",
      context: runContextOf(row),
      admissionAwaited: row.admission_awaited,
      lease: {
        runId: input.runId,
        leaseVersion: row.lease_version,
        owner: input.owner,
        resumed: row.previous_started !== null,
        previousStatus: row.previous_status,
      },
    };
  }
  const run = await selectRunLeaseState(pool, input.runId);
  if (!run || isTerminal(run.status) || isParked(run.status)) return { kind: "not_executable", status: run?.status ?? null };
  if (run.lease_held && run.lease_expires_at) return { kind: "lease_held", retryAt: run.lease_expires_at };
  return { kind: "blocked" };
}

/** Gives the run up without finishing it (worker shutdown): any worker may take it at once. */
export async function releaseLease(prisma: PrismaClient, lease: RunLease): Promise<boolean> {
  return (await clearRunLease(sqlPoolOf(prisma), { runId: lease.runId, leaseVersion: lease.leaseVersion })) > 0;
}

/**
 * Unleases a run whose decision handed it to a worker that did not take it (runs/resume-handover.ts: no
 * process listened, it had no slot for it soon enough, or it was pausing or stopping), for a queue
 * job's take to find it free: the generation to enqueue it with (its lease version bumped, so that a
 * late offer's worker cannot write). Null: the handover's lease no longer holds (the worker started
 * it, a cancel finished it): nothing to enqueue.
 */
export async function returnHandedOverRun(prisma: PrismaClient, handed: { runId: string; generation: RunGeneration }): Promise<RunGeneration | null> {
  const leaseVersion = await returnHandedRun(sqlPoolOf(prisma), { runId: handed.runId, leaseVersion: handed.generation.leaseVersion });
  return leaseVersion === undefined ? null : { lastEventSeq: handed.generation.lastEventSeq, leaseVersion };
}

/**
 * Renews every lease a worker holds in one statement (one round trip per interval, however many
 * runs). Returns the runs still held, with their cancel flag; a run missing from the answer was lost.
 */
export async function renewLeases(
  runner: SqlRunner,
  leases: readonly Pick<RunLease, "runId" | "leaseVersion" | "owner">[],
  leaseMs: number,
): Promise<Map<string, { cancelRequested: boolean }>> {
  if (leases.length === 0) return new Map();
  const rows = await extendRunLeases(runner, { leaseSeconds: leaseMs / 1000, leases });
  return new Map(rows.map((row) => [row.id, { cancelRequested: row.cancel_requested }]));
}
