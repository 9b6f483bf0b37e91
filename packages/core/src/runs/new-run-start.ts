import { runContextRow } from "../store/statements/run-context-statements.ts";
import { runContextOf } from "./load-run-context.ts";
import { HANDOVER_CONTEXT_MAX_LENGTH } from "./resume-handover.ts";
import type { AcquireOutcome } from "./run-lease.ts";
import { RunStatus } from "./run-status.ts";

/**
 * A new run started with no take (issue 11). Once a round's admission is committed, one statement
 * reads the contexts of the runs it admitted, as a take reads each (runs/admit-runs.ts), and each run is
 * offered to a worker with its own (queue run-offer.ts). The worker executes at once, and its first
 * commit takes the lease: fenced by the lease version admission read (nothing took, cancelled or
 * handed on the run since), it bumps the version and gives the lease to the worker
 * (store/run-statement.ts `handTo`), as a take would, with the run's `running` status, its start time
 * and `run.started`. A take was a statement and a transaction of the five or so a W1 run cost Postgres,
 * and a round trip through the worker's busy event loop before the first model request.
 *
 * Nothing the execution does before that commit leaves the worker: the first side effect, the model's
 * request, waits for it (runs/loop/run-execution.ts flushes before each). A commit the fence refuses (a
 * cancel finished the run, or the reconciler's queue job took it first) ends the execution as a lost
 * lease does, having done nothing. Until then the run is what admission left: queued, admitted, its
 * lease version unchanged, so it counts as waiting for admission's fairness bound until it starts,
 * exactly as before a take; and its worker renews no lease it does not hold yet.
 */
export interface NewRunStart {
  /** The run's context as JSON text (store/statements/run-context-statements.ts), as its admission read it. */
  context: string;
  /** The user still had runs waiting for admission: once this one starts (no longer waiting), admit again. */
  admissionAwaited: boolean;
}

/** The start of a run read as `context`; null when the context is too long to carry in an offer (resume-handover.ts says why). */
export function newRunStart(context: string, admissionAwaited: boolean): NewRunStart | null {
  return context.length <= HANDOVER_CONTEXT_MAX_LENGTH ? { context, admissionAwaited } : null;
}

/**
 * The lease and context a worker executes a new run with from its offer: the lease at the version its
 * admission read, to be taken by the first commit (`leaseOnFirstCommit`).
 */
export function newRunFromStart(
  /** `context`: the JSON read, parsed (an offer carries it as JSON: queue run-offer.ts). */
  start: { context: unknown; admissionAwaited: boolean },
  lease: { runId: string; leaseVersion: number; owner: string },
): Extract<AcquireOutcome, { kind: "acquired" }> {
  const row = runContextRow.parse(start.context);
  if (row.id !== lease.runId) throw new Error(`the offer's context is of run ${row.id}, not ${lease.runId}`);
  return {
    kind: "acquired",
    lease: { ...lease, resumed: false, previousStatus: RunStatus.queued },
    context: runContextOf(row),
    admissionAwaited: start.admissionAwaited,
    leaseOnFirstCommit: true,
  };
}
