import type { OwnedRun, RunEventRecord } from "../events/run-event.ts";
import { sqlPoolOf } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { lockRunLeaseVersion } from "../store/statements/run-lock-statements.ts";
import { stageOpenCallAnswers } from "./answer-open-tool-calls.ts";
import type { RunError } from "./run-error.ts";
import type { RunLease } from "./run-lease.ts";
import { RunStatus } from "./run-status.ts";
import type { RunLoopDependencies } from "./run-loop-dependencies.ts";
import { scheduleRunOfChat } from "./schedule-run-of-chat.ts";

/** Why a run that no worker can execute failed its open calls. */
const FAILED_CALL_REASONS = { reasonNotStarted: "not executed: the run failed", reasonStarted: "the run failed while this call was running" };

/**
 * Fails a run that no worker can execute (its execution threw on every attempt): open calls are
 * answered, pending approvals withdrawn and `run.failed` appended, unless it already finished. A
 * worker that still holds the run passes its lease and fails it under its fence; otherwise (or once
 * that lease is lost) the run is failed by status under its row lock, which bumps the lease version
 * so that no worker that took it meanwhile can overwrite the failure. After the commit its events are
 * published on its owner's channel (the caller has the owner from the run's context) and the chat's
 * next run, which it no longer blocks, is handed to a worker.
 */
export async function failRunWithoutLease(
  dependencies: Pick<RunLoopDependencies, "prisma" | "clock" | "generateId" | "publisher" | "scheduler" | "logger">,
  run: OwnedRun,
  error: RunError,
  options: { lease?: RunLease } = {},
): Promise<RunEventRecord[]> {
  const runId = run.id;
  const now = dependencies.clock();
  const fail = (fence: { leaseVersion: number } | { expectedStatuses: RunStatus[] }) =>
    inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
      const locked = await lockRunLeaseVersion(client, runId);
      if (!locked) return null;
      const change = emptyStatementChange(runId, "leaseVersion" in fence ? fence.leaseVersion : locked.lease_version);
      if ("expectedStatuses" in fence) change.expectedStatuses = fence.expectedStatuses;
      await stageOpenCallAnswers(client, change, FAILED_CALL_REASONS, dependencies.generateId);
      change.events.push({ type: "run.failed", data: { error } });
      change.status = RunStatus.failed;
      change.finish = { output: null, errorCode: error.code, errorMessage: error.message };
      return commitRunStatement(client, change, now);
    });
  const committed =
    (options.lease ? await fail({ leaseVersion: options.lease.leaseVersion }) : null) ??
    (await fail({ expectedStatuses: [RunStatus.queued, RunStatus.running] }));
  if (!committed) return [];
  dependencies.publisher.publishEvents(run, committed.events).catch((publishError: unknown) => {
    dependencies.logger.warn({ run_id: runId, err: publishError }, "publishing run events failed; subscribers replay from Postgres");
  });
  if (committed.nextRunOfChat) await scheduleRunOfChat(dependencies, committed.nextRunOfChat);
  return committed.events;
}
