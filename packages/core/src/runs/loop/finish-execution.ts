import type { NewRunEvent } from "../../events/run-event.ts";
import { sqlPoolOf } from "../../store/create-prisma-client.ts";
import { emptyStatementChange } from "../../store/run-statement.ts";
import { stageOpenCallAnswers } from "../answer-open-tool-calls.ts";
import type { RunError } from "../run-error.ts";
import type { RunOutcome } from "../run-outcome.ts";
import { RunStatus } from "../run-status.ts";
import { scheduleRunOfChat } from "../schedule-run-of-chat.ts";
import type { RunExecution } from "./run-execution.ts";

export type FinishKind = "completed" | "failed" | "cancelled";

export interface FinishDetail {
  output?: string;
  error?: RunError;
  /** Committed before the final event (the guard that ended the run). */
  events?: NewRunEvent[];
}

/**
 * The terminal transition of a run, made by the worker that holds it: open calls answered, status,
 * output or error, and the final event in one commit; then the chat's next queued run is handed
 * to a worker.
 */
export async function finishExecution(execution: RunExecution, kind: FinishKind, detail: FinishDetail): Promise<RunOutcome> {
  const { run } = execution.context;
  const finalEvent: NewRunEvent =
    kind === "completed"
      ? { type: "run.completed", data: { output: detail.output ?? "" } }
      : kind === "failed"
        ? { type: "run.failed", data: { error: detail.error } }
        : { type: "run.cancelled", data: { reason: "cancelled by the user" } };
  const status = kind === "completed" ? RunStatus.completed : kind === "failed" ? RunStatus.failed : RunStatus.cancelled;
  if (kind === "completed") {
    // Hot path: no open calls to answer, so the final answer and the status share one statement.
    execution.stage((change) => {
      change.status = status;
      change.finish = { output: detail.output ?? "", errorCode: null, errorMessage: null };
      change.events.push(...(detail.events ?? []), finalEvent);
    });
    await handOnChat(execution);
    return { kind: "completed", output: detail.output ?? "" };
  }
  // The cold path: what is staged goes first, then the calls still open (read under this worker's
  // lease, so nothing changes them meanwhile) are answered in the commit that ends the run.
  await execution.flush();
  const answers = emptyStatementChange(run.id, execution.input.lease.leaseVersion);
  await stageOpenCallAnswers(
    sqlPoolOf(execution.dependencies.prisma),
    answers,
    {
      reasonNotStarted: kind === "cancelled" ? "not executed: the run was cancelled" : "not executed: the run failed",
      reasonStarted:
        kind === "cancelled" ? "the run was cancelled while this call was running; its outcome is unknown" : "the run failed while this call was running",
    },
    execution.dependencies.generateId,
  );
  execution.stage((change) => {
    change.toolCallUpdates.push(...answers.toolCallUpdates);
    change.messages.push(...answers.messages);
    change.events.push(...answers.events, ...(detail.events ?? []), finalEvent);
    change.increments.toolCalls += answers.increments.toolCalls;
    change.withdrawPendingApprovals = true;
    change.status = status;
    change.finish = { output: null, errorCode: detail.error?.code ?? null, errorMessage: detail.error?.message ?? null };
  });
  await handOnChat(execution);
  if (kind === "failed") return { kind: "failed", error: detail.error ?? { code: "internal_error", message: "the run failed" } };
  return { kind: "cancelled" };
}

/** Commits the finish; its statement names the chat's next run that nothing blocks any more, which goes to a worker. */
async function handOnChat(execution: RunExecution): Promise<void> {
  const committed = await execution.flush();
  if (committed?.nextRunOfChat) await scheduleRunOfChat(execution.dependencies, committed.nextRunOfChat);
}
