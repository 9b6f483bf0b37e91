import type pg from "pg";
import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import {
  type InsertQueuedRunInput,
  insertQueuedRun,
  lockChatForRunCreation,
  lockIdempotencyKey,
  type RunRequest,
  selectRunsOfChatInStatuses,
} from "../store/statements/run-create-statements.ts";
import { lockUserLimits, selectUserDailyUsage } from "../store/statements/admission-statements.ts";
import { selectUserByTokenHash } from "../store/statements/user-statements.ts";
import type { AuthenticatedUser, RequestCaller } from "../users/user.ts";
import { InvalidTokenError } from "../users/user-errors.ts";
import { exceededQuota, QuotaExceededError, quotaDay } from "../users/user-quotas.ts";
import { LIMIT_DEFAULTS } from "./admit-runs.ts";
import { cancelRunInTransaction } from "./cancel-run.ts";
import { RunInProgressError } from "./run-errors.ts";
import { queuedRunView, type RunView } from "./run-view.ts";
import { ACTIVE_STATUSES } from "./run-status.ts";

export type MultitaskStrategy = "reject" | "enqueue" | "interrupt";

/**
 * Who creates the run: the user (authenticated already), or the hash of the request's bearer token,
 * which the creation's first statement then checks (POST /api/chats/:id/runs: one round trip fewer).
 */
export type CreateRunInput = RunRequest &
  RequestCaller & {
    chatId: string;
    multitask: MultitaskStrategy;
    idempotencyKey?: string | undefined;
    /**
     * Called with the user a token hash belongs to as soon as a statement found them, before any
     * error about the chat or the run is thrown (the API makes them the request's user). Default none.
     */
    admitCaller?: ((user: AuthenticatedUser) => Promise<void>) | undefined;
  };

export interface CreateRunDependencies {
  prisma: PrismaClient;
  clock: Clock;
  generateId: GenerateId;
}

export interface CreateRunResult {
  runId: string;
  /** The run's user: the caller. */
  userId: string;
  /** False when an idempotency key returned an earlier run. */
  created: boolean;
  /** The run may be handed to a worker now (no earlier run of the chat is still active). */
  runnable: boolean;
  /**
   * Events committed by this call on runs that live subscribers may follow: interrupted runs'
   * run.cancelled. The new run's run.queued is not among them: no one can be subscribed to a run
   * whose id this call has not yet returned, and a subscriber replays it from Postgres.
   */
  events: { runId: string; events: RunEventRecord[] }[];
  /** Interrupted runs that a worker is executing: it must be told to stop now. */
  cancelRequested: string[];
  /** The run as created (queued); null when an idempotency key returned an earlier run (read it). */
  view: RunView | null;
}

/** "The same idempotency_key from the same user within 24 hours returns the first run." */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a queued run: idempotency, the user's daily quotas, the chat's multitask rule, the run row
 * and its `run.queued` event (seq 1). Over a quota: QuotaExceededError, nothing created. A `runnable`
 * run is admitted by the caller after the commit (runs/admission-rounds.ts), in a round shared with
 * the user's other creations, so one user's creations do not queue behind each other on their row.
 *
 * Called with a token hash instead of a user, the creation's statement authenticates the request:
 * a token that does not work is InvalidTokenError (401), with nothing written.
 *
 * Plain SQL on the Prisma client's pool (store/statements/run-create-statements.ts): every run
 * starts here. A run without a key, an interrupt or a daily quota is created (or refused) in one
 * statement, one round trip; the others, and a statement that raced another creation in its chat,
 * take a transaction: the key's lock, the chat's lock, the interrupt, the statement, and the user's
 * lock for the quota check.
 */
export async function createRun(dependencies: CreateRunDependencies, input: CreateRunInput): Promise<CreateRunResult> {
  const now = dependencies.clock();
  const pool = sqlPoolOf(dependencies.prisma);
  const byToken = "tokenHash" in input;
  if (input.idempotencyKey === undefined && input.multitask !== "interrupt") {
    const runId = dependencies.generateId("run");
    const caller: RequestCaller = byToken ? { tokenHash: input.tokenHash } : { userId: input.userId };
    const outcome = await insertQueuedRun(pool, insertInput(input, caller, runId, now, { quotaChecked: false }));
    if (outcome === undefined && byToken) throw new InvalidTokenError();
    if (outcome && byToken) await input.admitCaller?.(outcome.caller);
    if (!outcome?.chat_found) throw new NotFoundError("chat", { chat_id: input.chatId });
    if (outcome.created_at) return createdResult(input, outcome.caller.id, runId, outcome.created_at, outcome.blocking_runs, [], []);
    if (outcome.fresh && outcome.quota_free) throw new RunInProgressError(input.chatId, outcome.first_active_id ?? "");
    return createRunInTransaction(dependencies, input, outcome.caller.id, now);
  }
  return createRunInTransaction(dependencies, input, byToken ? (await callerOfToken(pool, input.tokenHash, input.admitCaller)).id : input.userId, now);
}

/** The enabled user of the token whose hash is `tokenHash`, admitted (`admitCaller`), or InvalidTokenError. */
async function callerOfToken(pool: pg.Pool, tokenHash: string, admitCaller: CreateRunInput["admitCaller"]): Promise<AuthenticatedUser> {
  const caller = await selectUserByTokenHash(pool, tokenHash);
  if (caller === undefined) throw new InvalidTokenError();
  await admitCaller?.(caller);
  return caller;
}

/** The slow path: a key, an interrupt, a daily quota, or a race with another creation in the chat. */
function createRunInTransaction(dependencies: CreateRunDependencies, input: CreateRunInput, userId: string, now: Date): Promise<CreateRunResult> {
  const { chatId, multitask, idempotencyKey } = input;
  return inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
    if (idempotencyKey !== undefined) {
      await lockIdempotencyKey(client, `idem:${userId}:${idempotencyKey}`);
    }
    const locked = await lockChatForRunCreation(client, { chatId: chatId, userId: userId, idempotencyKey: idempotencyKey ?? null, now });
    if (locked?.existing_run_id) return { runId: locked.existing_run_id, userId, created: false, runnable: false, events: [], cancelRequested: [], view: null };
    if (!locked?.chat_id) throw new NotFoundError("chat", { chat_id: chatId });

    const events: CreateRunResult["events"] = [];
    const cancelRequested: string[] = [];
    if (multitask === "interrupt") await interruptActiveRuns(client, chatId, { now, generateId: dependencies.generateId }, events, cancelRequested);

    const runId = dependencies.generateId("run");
    const outcome = await insertQueuedRun(client, insertInput(input, { userId }, runId, now, { quotaChecked: true }));
    if (!outcome?.created_at) throw new RunInProgressError(chatId, outcome?.first_active_id ?? "");
    // A quota is checked under the user's row lock, last (after the chat's, always in that order), so
    // that two creations cannot both take its last unit. Checked after the insert, the quotas see this
    // run too; over one, the rollback creates nothing.
    const limits = outcome.runs_per_day > 0 || outcome.tokens_per_day > 0 ? await lockUserLimits(client, { userId, defaults: LIMIT_DEFAULTS }) : undefined;
    if (limits && (limits.runs_per_day > 0 || limits.tokens_per_day > 0)) {
      const day = quotaDay(now);
      // The new run is counted in runs_today: the quota is reached when the runs before it reached it,
      // which counting one past the limit tells as well as counting them all.
      const usage = await selectUserDailyUsage(client, {
        userId,
        dayStart: day.start,
        countRunsUpTo: limits.runs_per_day > 0 ? limits.runs_per_day + 1 : 0,
        sumTokens: limits.tokens_per_day > 0,
      });
      const exceeded = exceededQuota(limits, { runs_today: usage.runs_today - 1, tokens_today: usage.tokens_today });
      if (exceeded) throw new QuotaExceededError(exceeded.quota, exceeded.limit, day.resetsAt);
    }
    return createdResult(input, userId, runId, outcome.created_at, outcome.blocking_runs, events, cancelRequested);
  });
}

function insertInput(input: CreateRunInput, caller: RequestCaller, runId: string, now: Date, options: { quotaChecked: boolean }): InsertQueuedRunInput {
  const { chatId, multitask, idempotencyKey, input: text, model, mode, allowBash, allowWebSearch, useWeb, tools } = input;
  return {
    input: text,
    model,
    mode,
    allowBash,
    allowWebSearch,
    useWeb,
    tools,
    runId,
    chatId,
    caller,
    activeStatuses: ACTIVE_STATUSES,
    now,
    rejectIfActive: multitask === "reject",
    queuedEventData: { multitask: multitask },
    idempotencyKey: idempotencyKey ?? null,
    idempotencyExpiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
    limitDefaults: LIMIT_DEFAULTS,
    quotaChecked: options.quotaChecked,
  };
}

function createdResult(
  input: CreateRunInput,
  userId: string,
  runId: string,
  createdAt: Date,
  blockingRuns: number,
  events: CreateRunResult["events"],
  cancelRequested: string[],
): CreateRunResult {
  return {
    runId,
    userId,
    created: true,
    runnable: blockingRuns === 0,
    events,
    cancelRequested,
    view: queuedRunView({ ...input, id: runId, createdAt }),
  };
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
