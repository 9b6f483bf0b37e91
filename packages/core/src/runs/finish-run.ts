import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import { applyRunChange, type RunWriteCondition } from "../store/commit-run-change.ts";
import { TRANSACTION_OPTIONS } from "../store/create-prisma-client.ts";
import { LeaseLostError, RunStateConflictError } from "./run-errors.ts";
import { answerOpenToolCalls } from "./answer-open-tool-calls.ts";
import type { RunExecution } from "./execute-run.ts";
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
  detail: { output?: string; error?: { code: string; message: string }; events?: NewRunEvent[] },
): Promise<RunOutcome> {
  const { run } = execution.context;
  const now = execution.dependencies.clock();
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
  await execution.commit({
    prepare: (tx) =>
      answerOpenToolCalls(tx, {
        runId: run.id,
        chatId: run.chatId,
        now,
        reasonNotStarted: kind === "cancelled" ? "not executed: the run was cancelled" : "not executed: the run failed",
        reasonStarted:
          kind === "cancelled" ? "the run was cancelled while this call was running; its outcome is unknown" : "the run failed while this call was running",
      }),
    update: {
      status,
      output: null,
      errorCode: detail.error?.code ?? null,
      errorMessage: detail.error?.message ?? null,
      finishedAt: now,
      leaseExpiresAt: null,
      leaseOwner: null,
    },
    events: [...(detail.events ?? []), finalEvent],
  });
  await scheduleNextRunOfChat(execution.dependencies, run.chatId);
  if (kind === "failed") return { kind: "failed", error: detail.error ?? { code: "failed", message: "the run failed" } };
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

/**
 * Fails a run that no worker can execute (its execution threw on every attempt): open calls are
 * answered and `run.failed` is appended, unless it already finished. A worker that still holds the
 * run passes its lease and fails it under its fence; otherwise (or once that lease is lost) the run
 * is failed by status, which bumps the lease version so that no worker that took it meanwhile can
 * overwrite the failure.
 */
export async function failRunWithoutLease(
  dependencies: Pick<RunLoopDependencies, "prisma" | "clock">,
  runId: string,
  error: { code: string; message: string },
  options: { lease?: RunLease } = {},
): Promise<RunEventRecord[]> {
  const now = dependencies.clock();
  const fail = (condition: RunWriteCondition) =>
    dependencies.prisma.$transaction(async (tx) => {
      const run = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { chatId: true } });
      const result = await applyRunChange(
        tx,
        {
          runId,
          condition,
          prepare: (inner) =>
            answerOpenToolCalls(inner, {
              runId,
              chatId: run.chatId,
              now,
              reasonNotStarted: "not executed: the run failed",
              reasonStarted: "the run failed while this call was running",
            }),
          update: { status: RunStatus.failed, errorCode: error.code, errorMessage: error.message, finishedAt: now, leaseExpiresAt: null, leaseOwner: null },
          events: [{ type: "run.failed", data: { error } }],
        },
        now,
      );
      return result.events;
    }, TRANSACTION_OPTIONS);
  try {
    if (options.lease) {
      try {
        return await fail({ leaseVersion: options.lease.leaseVersion });
      } catch (caught) {
        if (!(caught instanceof LeaseLostError)) throw caught;
      }
    }
    return await fail({ statusIn: [RunStatus.queued, RunStatus.running] });
  } catch (caught) {
    if (caught instanceof RunStateConflictError) return [];
    throw caught;
  }
}
