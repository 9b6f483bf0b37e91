import type { Clock } from "../clock.ts";
import type { OwnedRun, RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { inSpan, setSpanAttributes } from "../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../telemetry/trace-attributes.ts";
import { cancelRunInTransaction } from "./cancel-run.ts";
import { createRun, type CreateRunInput, type CreateRunResult } from "./create-run.ts";
import { decideApproval, type DecideApprovalDependencies, type DecideApprovalInput, type DecideApprovalResult } from "./decide-approval.ts";
import type { LoopLogger, RunGeneration } from "./run-loop-dependencies.ts";
import { requireOwnRun } from "./run-queries.ts";
import { scheduleRunOfChat } from "./schedule-run-of-chat.ts";
import type { ResumeHandover } from "./resume-handover.ts";
import type { RunStatus } from "./run-status.ts";

/**
 * What a command does after its commit, to the world outside Postgres: tell live subscribers,
 * hand runs to workers, ask a worker to stop. The API gives Redis-backed ones; tests give fakes.
 */
export interface RunAfterCommit {
  /** On the channel of the run's owner. Best effort: subscribers replay from Postgres (invariant 6). */
  publish(run: OwnedRun, events: RunEventRecord[]): void;
  /** Hands a run to some worker; rejects (UnavailableError) when the queue cannot take it now. */
  schedule(runId: string, generation: RunGeneration): Promise<void>;
  /**
   * Hands a run whose approval was decided to `worker` directly when that worker's process is
   * listening, else to the queue as `schedule` does (null: straight to the queue). `handover`: the
   * decision's commit gave `worker` the run's lease already (resume-handover.ts); if the worker does
   * not take it, the run is unleased first.
   */
  resume(runId: string, generation: RunGeneration, worker: string | null, handover: ResumeHandover | null): Promise<void>;
  /** Admits the queued runs of `runId`'s owner that their limits allow, and hands them on (runs/admit-runs.ts). */
  admitFor(runId: string): Promise<void>;
  /**
   * Admits `userId`'s queued runs in a round shared with their other creations (admission-rounds.ts)
   * once `runId`, just created, is committed; rejects (UnavailableError) when that round admitted
   * `runId` and the queue could not take it.
   */
  admitCreated(userId: string, runId: string): Promise<void>;
  /** Asks whichever worker executes the run to stop at once (best effort: it also sees the flag). */
  requestCancel(runId: string): void;
}

export interface RunCommandDependencies {
  prisma: PrismaClient;
  clock: Clock;
  generateId: GenerateId;
  logger: LoopLogger;
  afterCommit: RunAfterCommit;
}

/**
 * POST /api/chats/:id/runs: creates the run (multitask rule, idempotency), then publishes and stops
 * the runs it interrupted and, when nothing is ahead of it in its chat, admits it
 * (and older queued runs of the user their limits now leave room for) and hands it to a worker. A
 * queue that cannot take the run rejects after the commit: the run is kept, queued, and the
 * reconciler hands it on later.
 */
export function startRun(dependencies: RunCommandDependencies, input: CreateRunInput): Promise<CreateRunResult> {
  // The span is active while the run is enqueued: the job carries its context, and the worker's
  // execution continues this trace.
  return inSpan(
    SpanName.runStart,
    () => ({ [TraceAttribute.chatId]: input.chatId }),
    async (span) => {
      const { afterCommit } = dependencies;
      const result = await createRun(dependencies, input);
      span.setAttribute(TraceAttribute.runId, result.runId);
      // The runs it interrupted are of the same chat, so of the same user (a run's user is its chat's).
      for (const { runId, events } of result.events) afterCommit.publish({ id: runId, userId: result.userId }, events);
      for (const runId of result.cancelRequested) afterCommit.requestCancel(runId);
      if (result.created && result.runnable) await afterCommit.admitCreated(result.userId, result.runId);
      return result;
    },
  );
}

/**
 * POST /api/runs/:id/cancel: a run with no worker (queued, parked) is finished here and the chat's
 * next run handed on; a running one is flagged and its worker told to stop. Someone else's run is
 * not_found; a finished one RunFinishedError.
 */
export async function cancelRun(
  dependencies: RunCommandDependencies,
  input: { userId: string; runId: string; reason: string },
): Promise<{ status: RunStatus; finishedNow: boolean }> {
  const { prisma, afterCommit } = dependencies;
  const run = await requireOwnRun(prisma, input.userId, input.runId);
  const outcome = await inSqlTransaction(sqlPoolOf(prisma), (client) =>
    cancelRunInTransaction(client, run.id, { now: dependencies.clock(), reason: input.reason, generateId: dependencies.generateId }),
  );
  if (outcome.finishedNow) {
    afterCommit.publish({ id: run.id, userId: input.userId }, outcome.events);
    // A cancelled run no longer counts against its user's max_active_runs, and may unblock its chat's next run.
    await scheduleRunOfChat(
      { scheduler: afterCommit, logger: dependencies.logger },
      outcome.nextRunOfChat ?? { id: run.id, generation: { lastEventSeq: 0, leaseVersion: 0 } },
    );
  } else {
    afterCommit.requestCancel(run.id);
  }
  return { status: outcome.status, finishedNow: outcome.finishedNow };
}

/**
 * POST /api/approvals: consumes the approval once (decide-approval.ts), publishes the decision and,
 * when it was the run's last pending one, hands the run back to a worker. The decision is committed
 * either way: if the queue is down now, the reconciler resumes the run later.
 */
export async function decideRunApproval(
  dependencies: RunCommandDependencies & Pick<DecideApprovalDependencies, "approvalSecret" | "tools" | "commitOnWorker">,
  input: DecideApprovalInput,
): Promise<DecideApprovalResult> {
  const attributes = () => ({ [TraceAttribute.approvalId]: input.approvalId, [TraceAttribute.approvalDecision]: input.decision });
  // Active while the resumed run is enqueued: its execution continues this trace.
  return inSpan(SpanName.approvalDecide, attributes, async (span) => {
    const { afterCommit } = dependencies;
    const result = await decideApproval(dependencies, input);
    setSpanAttributes(span, () => ({ [TraceAttribute.runId]: result.runId, [TraceAttribute.approvalResumed]: result.resumed }));
    // decideApproval found the approval as the caller's, and an approval is its run owner's.
    afterCommit.publish({ id: result.runId, userId: result.caller.id }, result.events);
    if (result.resume) {
      const { worker, handover, ...generation } = result.resume;
      await afterCommit.resume(result.runId, generation, worker, handover).catch((error: unknown) => {
        dependencies.logger.warn({ run_id: result.runId, err: error }, "could not hand the approved run to a worker; the reconciler will");
      });
    }
    return result;
  });
}
