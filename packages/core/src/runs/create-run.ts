import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import type { TransactionClient } from "../store/commit-run-change.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import { cancelRunInTransaction } from "./cancel-run.ts";
import { RunInProgressError } from "./run-errors.ts";
import { ACTIVE_STATUSES, RunStatus } from "./run-status.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import { TRANSACTION_OPTIONS } from "../store/create-prisma-client.ts";

export type MultitaskStrategy = "reject" | "enqueue" | "interrupt";

export interface CreateRunInput {
  userId: string;
  chatId: string;
  input: string;
  model: string;
  mode: "agent" | "guide";
  allowBash: boolean;
  allowWebSearch: boolean;
  useWeb: boolean;
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
 * Creates a queued run in one transaction: idempotency, the chat's multitask rule, the run row and
 * its `run.queued` event (seq 1). The caller enqueues it after the commit when `runnable`.
 */
export async function createRun(dependencies: CreateRunDependencies, input: CreateRunInput): Promise<CreateRunResult> {
  const now = dependencies.clock();
  return dependencies.prisma.$transaction(async (tx) => {
    if (input.idempotencyKey !== undefined) {
      // Serializes concurrent requests with the same key (they may name different chats).
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`idem:${input.userId}:${input.idempotencyKey}`}, 0))`;
      const existing = await tx.idempotencyKey.findUnique({ where: { userId_key: { userId: input.userId, key: input.idempotencyKey } } });
      if (existing && existing.expiresAt > now) return { runId: existing.runId, created: false, runnable: false, events: [], cancelRequested: [] };
    }
    // Locks the chat row: run creation in one chat is serialized, so the multitask rule holds.
    const chats = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM chats WHERE id = ${input.chatId} AND user_id = ${input.userId} FOR UPDATE`;
    if (chats.length === 0) throw new NotFoundError("chat", { chat_id: input.chatId });

    const active = await tx.run.findMany({
      where: { chatId: input.chatId, status: { in: [...ACTIVE_STATUSES] } },
      orderBy: { createdAt: "asc" },
      select: { id: true, status: true },
    });
    const events: CreateRunResult["events"] = [];
    const cancelRequested: string[] = [];
    if (active.length > 0 && input.multitask === "reject") throw new RunInProgressError(input.chatId, active[0]!.id);
    if (input.multitask === "interrupt") {
      for (const run of active) {
        const cancelled = await cancelRunInTransaction(tx, run.id, now, "interrupted by a newer run of the chat");
        if (cancelled.events.length > 0) events.push({ runId: run.id, events: cancelled.events });
        if (!cancelled.finishedNow) cancelRequested.push(run.id);
      }
    }

    const runId = dependencies.generateId("run");
    await tx.run.create({
      data: {
        id: runId,
        chatId: input.chatId,
        userId: input.userId,
        status: RunStatus.queued,
        input: input.input,
        model: input.model,
        mode: input.mode,
        allowBash: input.allowBash,
        allowWebSearch: input.allowWebSearch,
        useWeb: input.useWeb,
        lastEventSeq: 1,
        createdAt: now,
        updatedAt: now,
        events: { create: { seq: 1, type: "run.queued", data: { multitask: input.multitask }, createdAt: now } },
      },
    });
    events.push({ runId, events: [{ seq: 1, type: "run.queued", at: now.toISOString(), data: { multitask: input.multitask } }] });
    if (input.idempotencyKey !== undefined) {
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS);
      await tx.idempotencyKey.upsert({
        where: { userId_key: { userId: input.userId, key: input.idempotencyKey } },
        create: { userId: input.userId, key: input.idempotencyKey, runId, expiresAt },
        update: { runId, expiresAt },
      });
    }
    const stillActive = await countBlockingRuns(tx, input.chatId, runId);
    return { runId, created: true, runnable: stillActive === 0, events, cancelRequested };
  }, TRANSACTION_OPTIONS);
}

/** Runs of the chat that must finish before `runId` may start (active, and older or already running). */
export async function countBlockingRuns(tx: TransactionClient | PrismaClient, chatId: string, runId: string): Promise<number> {
  return tx.run.count({ where: { chatId, id: { not: runId }, status: { in: [...ACTIVE_STATUSES] } } });
}
