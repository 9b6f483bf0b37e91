import type pg from "pg";
import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import {
  insertQueuedRun,
  lockChatForRunCreation,
  lockIdempotencyKey,
  type RunRequest,
  selectRunsOfChatInStatuses,
} from "../store/statements/run-create-statements.ts";
import { lockUserLimits, selectUserUsage } from "../store/statements/admission-statements.ts";
import { exceededQuota, QuotaExceededError, quotaDay } from "../users/user-quotas.ts";
import { LIMIT_DEFAULTS } from "./admit-runs.ts";
import { cancelRunInTransaction } from "./cancel-run.ts";
import { RunInProgressError } from "./run-errors.ts";
import { ACTIVE_STATUSES } from "./run-status.ts";

export type MultitaskStrategy = "reject" | "enqueue" | "interrupt";

export interface CreateRunInput extends RunRequest {
  userId: string;
  chatId: string;
  multitask: MultitaskStrategy;
  idempotencyKey?: string | undefined;
}

export interface CreateRunDependencies {
  prisma: PrismaClient;
  clock: Clock;
  generateId: GenerateId;
}

export interface CreateRunResult {
  runId: string;
  /** False when an idempotency key returned an earlier run. */
  created: boolean;
  /** The run may be handed to a worker now (no earlier run of the chat is still active). */
  runnable: boolean;
  /** Events committed by this call, per run (the new run's run.queued; interrupted runs' run.cancelled). */
  events: { runId: string; events: RunEventRecord[] }[];
  /** Interrupted runs that a worker is executing: it must be told to stop now. */
  cancelRequested: string[];
}

/** "The same idempotency_key from the same user within 24 hours returns the first run." */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a queued run in one transaction: idempotency, the user's daily quotas, the chat's multitask
 * rule, the run row and its `run.queued` event (seq 1). Over a quota: QuotaExceededError, nothing
 * created. A `runnable` run is admitted by the caller after the commit (runs/admission-rounds.ts),
 * in a round shared with the user's other creations: the user's row lock, which admission needs, is
 * taken here only when a daily quota applies, so one user's creations do not queue behind each other.
 *
 * Plain SQL on the Prisma client's pool (store/statements/run-create-statements.ts): every run
 * starts here. Without a key or a quota, a run is created or refused in four round trips (BEGIN, the
 * chat's lock, the create statement, COMMIT); a key adds its lock, a quota the user's lock and usage.
 */
export async function createRun(dependencies: CreateRunDependencies, input: CreateRunInput): Promise<CreateRunResult> {
  const now = dependencies.clock();
  const { userId, chatId, multitask, idempotencyKey, ...request } = input;
  return inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
    if (idempotencyKey !== undefined) {
      await lockIdempotencyKey(client, `idem:${userId}:${idempotencyKey}`);
    }
    const locked = await lockChatForRunCreation(client, { chatId: chatId, userId: userId, idempotencyKey: idempotencyKey ?? null, now });
    if (locked?.existing_run_id) return { runId: locked.existing_run_id, created: false, runnable: false, events: [], cancelRequested: [] };
    if (!locked?.chat_id) throw new NotFoundError("chat", { chat_id: chatId });

    const events: CreateRunResult["events"] = [];
    const cancelRequested: string[] = [];
    if (multitask === "interrupt") await interruptActiveRuns(client, chatId, { now, generateId: dependencies.generateId }, events, cancelRequested);

    const runId = dependencies.generateId("run");
    const outcome = await insertQueuedRun(client, {
      ...request,
      runId,
      chatId,
      userId,
      activeStatuses: ACTIVE_STATUSES,
      now,
      rejectIfActive: multitask === "reject",
      queuedEventData: { multitask: multitask },
      idempotencyKey: idempotencyKey ?? null,
      idempotencyExpiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
      limitDefaults: LIMIT_DEFAULTS,
    });
    if (!outcome?.created_at) throw new RunInProgressError(chatId, outcome?.first_active_id ?? "");
    events.push({ runId, events: [{ seq: 1, type: "run.queued", at: outcome.created_at.toISOString(), data: { multitask: multitask } }] });
    // A quota is checked under the user's row lock, last (after the chat's, always in that order), so
    // that two creations cannot both take its last unit. Checked after the insert, the quotas see this
    // run too; over one, the rollback creates nothing.
    const limits = outcome.runs_per_day > 0 || outcome.tokens_per_day > 0 ? await lockUserLimits(client, { userId, defaults: LIMIT_DEFAULTS }) : undefined;
    if (limits && (limits.runs_per_day > 0 || limits.tokens_per_day > 0)) {
      const day = quotaDay(now);
      const usage = await selectUserUsage(client, { userId, dayStart: day.start });
      // The new run is counted in runs_today: the quota is reached when the runs before it reached it.
      const exceeded = exceededQuota(limits, { runs_today: usage.runs_today - 1, tokens_today: usage.tokens_today });
      if (exceeded) throw new QuotaExceededError(exceeded.quota, exceeded.limit, day.resetsAt);
    }
    return { runId, created: true, runnable: outcome.blocking_runs === 0, events, cancelRequested };
  });
}

/** Cancels the chat's active runs (multitask "interrupt"), oldest first, collecting what the caller publishes. */
async function interruptActiveRuns(
  client: pg.PoolClient,
  chatId: string,
  options: { now: Date; generateId: GenerateId },
  events: CreateRunResult["events"],
  cancelRequested: string[],
): Promise<void> {
  const active = await selectRunsOfChatInStatuses(client, { chatId, statuses: ACTIVE_STATUSES });
  for (const run of active) {
    const cancelled = await cancelRunInTransaction(client, run.id, { ...options, reason: "interrupted by a newer run of the chat" });
    if (cancelled.events.length > 0) events.push({ runId: run.id, events: cancelled.events });
    if (!cancelled.finishedNow) cancelRequested.push(run.id);
  }
}
