import type pg from "pg";
import type { RunEventRecord } from "../events/run-event.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import { type CommittedChange, commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import { lockRunForCancel } from "../store/statements/run-lock-statements.ts";
import { stageOpenCallAnswers } from "./answer-open-tool-calls.ts";
import { RunFinishedError, RunStateConflictError } from "./run-errors.ts";
import { isTerminal, RunStatus } from "./run-status.ts";

export interface CancelOutcome {
  status: RunStatus;
  /** The run was finished right here (it had no worker); otherwise its worker finishes it. */
  finishedNow: boolean;
  events: RunEventRecord[];
  /** With a finish here: the chat's next run that nothing blocks any more, to hand to a worker. */
  nextRunOfChat: CommittedChange["nextRunOfChat"];
}

/**
 * Cancels a run inside the caller's transaction (`client` comes from inSqlTransaction). A queued or
 * parked run has no worker, so it is finished here (its open calls answered, `run.cancelled`); a
 * running run gets `cancel_requested` and its worker stops at the next step. A finished run is a
 * RunFinishedError.
 *
 * Plain SQL on the Prisma client's pool (store/sql-pool.ts): an interrupt cancels inside run
 * creation, which is on the path every run starts from; the finish is the worker's own one-statement
 * commit (store/run-statement.ts), fenced by the lease version read under the run's lock.
 */
export async function cancelRunInTransaction(
  client: pg.PoolClient,
  runId: string,
  options: { now: Date; reason: string; generateId: GenerateId },
): Promise<CancelOutcome> {
  const { now, reason, generateId } = options;
  // The run, locked: a decision on one of its approvals or a worker's commit waits for the cancel.
  const run = await lockRunForCancel(client, runId);
  if (!run) throw new NotFoundError("run", { run_id: runId });
  if (isTerminal(run.status)) throw new RunFinishedError(runId);
  // The run's lock is held, so its lease version cannot move before the commit below.
  const change = emptyStatementChange(runId, run.lease_version);
  change.requestCancel = true;
  if (run.status === RunStatus.running) {
    // Its worker finishes it: the flag only (the lease stays the worker's).
    if (!(await commitRunStatement(client, change, now))) throw new RunStateConflictError(runId, "the run changed state meanwhile; fetch it again");
    return { status: run.status, finishedNow: false, events: [], nextRunOfChat: null };
  }
  await stageOpenCallAnswers(
    client,
    change,
    { reasonNotStarted: "not executed: the run was cancelled", reasonStarted: "the run was cancelled while this call was running; its outcome is unknown" },
    generateId,
  );
  change.events.push({ type: "run.cancelled", data: { reason } });
  change.status = RunStatus.cancelled;
  // Fenced by its status (the lock holds it) and the lease version bumped: a queued run may be leased
  // to a worker its decision handed it to (resume-handover.ts), and that worker's first commit, made
  // with the version it was handed, must find the run taken from it rather than bring it back.
  change.expectedStatuses = [run.status];
  // A run that never finished has no output or error: the finish clears nothing that was set.
  change.finish = { output: null, errorCode: null, errorMessage: null };
  const committed = await commitRunStatement(client, change, now);
  if (!committed) throw new RunStateConflictError(runId, "the run changed state meanwhile; fetch it again");
  return { status: RunStatus.cancelled, finishedNow: true, events: committed.events, nextRunOfChat: committed.nextRunOfChat };
}
