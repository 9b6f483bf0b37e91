import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import { sqlPoolOf } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import { inSqlTransaction, queryRows } from "../store/sql-pool.ts";
import { stageOpenCallAnswers } from "./answer-open-tool-calls.ts";
import type { RunExecution } from "./execute-run.ts";
import type { RunError } from "./run-error.ts";
import { nextRunnableRunOfChat, type RunLease } from "./run-lease.ts";
import type { RunOutcome } from "./run-outcome.ts";
import { RunStatus } from "./run-status.ts";
import type { RunLoopDependencies } from "./run-loop-dependencies.ts";

export type FinishKind = "completed" | "failed" | "cancelled";

/**
 * The terminal transition of a run, made by the worker that holds it: open calls answered, status,
 * output or error, and the final event in one commit; then the chat's next queued run is handed
 * to a worker.
 */
export async function finishRun(
  execution: RunExecution,
  kind: FinishKind,
  detail: { output?: string; error?: RunError; events?: NewRunEvent[] },
): Promise<RunOutcome> {
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
    await execution.flush();
    await scheduleNextRunOfChat(execution.dependencies, run.chatId);
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
  await execution.flush();
  await scheduleNextRunOfChat(execution.dependencies, run.chatId);
  if (kind === "failed") return { kind: "failed", error: detail.error ?? { code: "internal_error", message: "the run failed" } };
  return { kind: "cancelled" };
}

/** Hands the chat's oldest waiting run to a worker once nothing blocks it any more. */
export async function scheduleNextRunOfChat(dependencies: Pick<RunLoopDependencies, "prisma" | "scheduler" | "logger">, chatId: string): Promise<void> {
  const next = await nextRunnableRunOfChat(dependencies.prisma, chatId);
  if (!next) return;
  await dependencies.scheduler.schedule(next.id, { lastEventSeq: next.lastEventSeq, leaseVersion: next.leaseVersion }).catch((error: unknown) => {
    dependencies.logger.warn({ run_id: next.id, err: error }, "could not enqueue the chat's next run; the reconciler will");
  });
}

/** Why a run that no worker can execute failed its open calls. */
const FAILED_CALL_REASONS = { reasonNotStarted: "not executed: the run failed", reasonStarted: "the run failed while this call was running" };

/**
 * Fails a run that no worker can execute (its execution threw on every attempt): open calls are
 * answered, pending approvals withdrawn and `run.failed` appended, unless it already finished. A
 * worker that still holds the run passes its lease and fails it under its fence; otherwise (or once
 * that lease is lost) the run is failed by status under its row lock, which bumps the lease version
 * so that no worker that took it meanwhile can overwrite the failure.
 */
export async function failRunWithoutLease(
  dependencies: Pick<RunLoopDependencies, "prisma" | "clock" | "generateId">,
  runId: string,
  error: RunError,
  options: { lease?: RunLease } = {},
): Promise<RunEventRecord[]> {
  const now = dependencies.clock();
  const fail = (fence: { leaseVersion: number } | { expectedStatuses: RunStatus[] }) =>
    inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
      const [locked] = await queryRows<{ lease_version: number }>(client, "SELECT lease_version FROM runs WHERE id = $1 FOR UPDATE", [runId]);
      if (!locked) return null;
      const change = emptyStatementChange(runId, "leaseVersion" in fence ? fence.leaseVersion : locked.lease_version);
      if ("expectedStatuses" in fence) change.expectedStatuses = fence.expectedStatuses;
      await stageOpenCallAnswers(client, change, FAILED_CALL_REASONS, dependencies.generateId);
      change.events.push({ type: "run.failed", data: { error } });
      change.status = RunStatus.failed;
      change.finish = { output: null, errorCode: error.code, errorMessage: error.message };
      return commitRunStatement(client, change, now);
    });
  if (options.lease) {
    const committed = await fail({ leaseVersion: options.lease.leaseVersion });
    if (committed) return committed.events;
  }
  const committed = await fail({ expectedStatuses: [RunStatus.queued, RunStatus.running] });
  return committed?.events ?? [];
}
