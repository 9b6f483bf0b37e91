import type { GrantRef } from "../policy/decide-tool-call.ts";
import { runContextRow } from "../store/statements/run-context-statements.ts";
import { runContextOf } from "./load-run-context.ts";
import type { ExecuteRunInput } from "./loop/run-execution.ts";
import type { AcquireOutcome } from "./run-lease.ts";
import { RunStatus } from "./run-status.ts";

/**
 * A decided run handed straight to a worker (issue 11). The decision's commit gives the run's lease to
 * the worker it offers the run to (store/run-statement.ts, `handTo`), and the offer carries the run's
 * context as the decision read it, with what the decision changed in it. The worker then executes at
 * once: no take statement (run-lease.ts), a round trip through two busy event loops that every resume
 * waited on.
 *
 * The run's own state in the context is exact: the decision's commit is fenced by the run's last event
 * seq as read, so nothing else changed the run between that read and the commit, and `decided` and
 * `grant` are all the commit changed of it (besides the status, now `queued`). What is not the run's
 * (the settings, the user's role and quota, the chat's grants) is as of the decision's read, as a take
 * reads it as of the take, a moment later: the execution uses it as read from then on either way. The run stays queued, leased to
 * the worker, until the worker's first commit makes it running, as after a take: a client sees the
 * same states as before, and a queue job for it finds the lease held. The lease is as long as the
 * worker's own (its RUN_LEASE_MS, which its presence row carries), so a worker that dies before taking
 * the run holds it no longer than one that dies executing it; the reconciler then hands it on. A worker
 * whose row does not carry it is of an earlier release: it is offered the run without a handover.
 */
export interface ResumeHandover {
  /** The run's context (store/statements/run-context-statements.ts) as JSON text, read by the decision before its commit. */
  context: string;
  /** The approvals the decision decided: the one decided and those its grant covered. */
  decided: HandedDecision[];
  /** The grant an allow stored (null: a deny). */
  grant: GrantRef | null;
}

export interface HandedDecision {
  approvalId: string;
  status: "allowed" | "denied";
  /** With an allow: the arguments the user edited. */
  editedArguments?: Record<string, unknown>;
}

/**
 * The largest context a handover carries, in characters (64 Ki, a chat of a few dozen turns): Redis
 * carries it to the worker in the offer, and a burst of large offers to a busy worker would fill the
 * output buffer Redis keeps for a subscriber (8 MB for a minute by default, past which it drops the
 * connection, and with it the worker's cancels). A run with a longer chat is offered without it and
 * taken by its worker as before.
 */
export const HANDOVER_CONTEXT_MAX_LENGTH = 64 * 1024;

/**
 * The lease and context a worker executes a handed-over run with: what its own take would have acquired.
 * With `decision` (a decision left uncommitted to this worker, approval-decision-record.ts), the lease is
 * not the worker's yet: `lease.leaseVersion` is the run's as the decision read it, and the execution's
 * first commit records the decision and takes the lease, in one statement.
 */
export function handedOverRun(
  handover: ResumeHandover,
  lease: { runId: string; leaseVersion: number; owner: string },
  decision?: NonNullable<ExecuteRunInput["decisionOnFirstCommit"]>,
): Extract<AcquireOutcome, { kind: "acquired" }> {
  const row = runContextRow.parse(JSON.parse(handover.context));
  if (row.id !== lease.runId) throw new Error(`the handover's context is of run ${row.id}, not ${lease.runId}`);
  const decided = new Map(handover.decided.map((decision) => [decision.approvalId, decision]));
  for (const call of row.open_calls) {
    const decision = call.approval ? decided.get(call.approval.id) : undefined;
    if (!call.approval || !decision) continue;
    call.approval.status = decision.status;
    if (decision.editedArguments !== undefined) call.approval.editedArguments = decision.editedArguments;
  }
  if (handover.grant) row.grants.push({ tool: handover.grant.tool, effects: [...handover.grant.effects] });
  // Queued (and leased) as the decision left it, which is what a take would have found: the
  // execution's first commit makes it running.
  row.status = RunStatus.queued;
  return {
    kind: "acquired",
    lease: { ...lease, resumed: true, previousStatus: RunStatus.queued },
    context: runContextOf(row),
    // A resumed run was admitted long ago: its take leaves no fewer runs waiting for admission.
    admissionAwaited: false,
    ...(decision ? { leaseOnFirstCommit: true, decisionOnFirstCommit: decision } : {}),
  };
}
