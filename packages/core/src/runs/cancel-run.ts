import type { RunEventRecord } from "../events/run-event.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import { applyRunChange, type TransactionClient } from "../store/commit-run-change.ts";
import { answerOpenToolCalls } from "./answer-open-tool-calls.ts";
import { RunFinishedError } from "./run-errors.ts";
import { isTerminal, RunStatus } from "./run-status.ts";

export interface CancelOutcome {
  status: RunStatus;
  /** The run was finished right here (it had no worker); otherwise its worker finishes it. */
  finishedNow: boolean;
  events: RunEventRecord[];
}

/**
 * Cancels a run inside the caller's transaction. A queued or parked run has no worker, so it is
 * finished here (its open calls answered, `run.cancelled`); a running run gets `cancel_requested`
 * and its worker stops at the next step. A finished run is a RunFinishedError.
 */
export async function cancelRunInTransaction(tx: TransactionClient, runId: string, now: Date, reason: string): Promise<CancelOutcome> {
  const [run] = await tx.$queryRaw<{ status: RunStatus; chat_id: string }[]>`SELECT status, chat_id FROM runs WHERE id = ${runId} FOR UPDATE`;
  if (!run) throw new NotFoundError("run", { run_id: runId });
  if (isTerminal(run.status)) throw new RunFinishedError(runId);
  if (run.status === RunStatus.running) {
    await tx.run.update({ where: { id: runId }, data: { cancelRequested: true, updatedAt: now } });
    return { status: run.status, finishedNow: false, events: [] };
  }
  const toolEvents = await answerOpenToolCalls(tx, {
    runId,
    chatId: run.chat_id,
    now,
    reasonNotStarted: "not executed: the run was cancelled",
    reasonStarted: "the run was cancelled while this call was running; its outcome is unknown",
  });
  const result = await applyRunChange(
    tx,
    {
      runId,
      condition: { statusIn: [run.status] },
      update: { status: RunStatus.cancelled, cancelRequested: true, finishedAt: now, leaseExpiresAt: null, leaseOwner: null },
      events: [...toolEvents, { type: "run.cancelled", data: { reason } }],
    },
    now,
  );
  return { status: RunStatus.cancelled, finishedNow: true, events: result.events };
}
