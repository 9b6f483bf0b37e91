import type { Clock } from "../clock.ts";
import type { NewRunEvent, RunEventPublisher, RunEventRecord } from "../events/run-event.ts";
import { LeaseLostError, RunStateConflictError } from "../runs/run-errors.ts";
import type { RunStatus } from "../runs/run-status.ts";
import type { Prisma, PrismaClient } from "./create-prisma-client.ts";
import { TRANSACTION_OPTIONS } from "./create-prisma-client.ts";

export type TransactionClient = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * Who may make the change. A worker names the lease version it took (fencing: a worker whose
 * lease was taken over matches no row); a writer that holds no lease names the statuses the run
 * must be in, and its write bumps the lease version (no worker's fence survives it).
 */
export type RunWriteCondition = { leaseVersion: number } | { statusIn: readonly RunStatus[] };

export interface RunChange {
  runId: string;
  condition: RunWriteCondition;
  /** Column changes of the run row (counters as `{increment: n}`). */
  update?: Omit<Prisma.RunUpdateInput, "lastEventSeq">;
  /** Durable events describing the change; they get the next seqs of the run. */
  events?: NewRunEvent[];
  /**
   * Runs first in the transaction; the events it returns go before `events` (for changes whose
   * events depend on what the transaction finds, such as answering a run's open tool calls).
   */
  prepare?: (tx: TransactionClient) => Promise<NewRunEvent[]>;
  /** Other rows written in the same transaction (messages, tool calls, approvals). */
  write?: (tx: TransactionClient, run: CommittedRun) => Promise<void>;
}

/** The run row as the change left it. */
export interface CommittedRun {
  id: string;
  status: RunStatus;
  cancelRequested: boolean;
  lastEventSeq: number;
  leaseVersion: number;
}

export interface CommitResult {
  run: CommittedRun;
  events: RunEventRecord[];
}

export interface RunJournalOptions {
  prisma: PrismaClient;
  publisher: RunEventPublisher;
  clock: Clock;
  /** Called when a publish fails (pub/sub is best effort: subscribers replay from Postgres). */
  onPublishError?: (error: unknown) => void;
}

/**
 * The one place every state change of a run goes through (STYLE.md): it checks the fence or the
 * expected status, applies the change, and appends its durable events with contiguous seqs, all in
 * one transaction (invariants 2 and 6); it publishes the events after the commit.
 */
export class RunJournal {
  readonly #options: RunJournalOptions;

  constructor(options: RunJournalOptions) {
    this.#options = options;
  }

  get prisma(): PrismaClient {
    return this.#options.prisma;
  }

  async commit(change: RunChange): Promise<CommitResult> {
    const result = await this.#options.prisma.$transaction((tx) => applyRunChange(tx, change, this.#options.clock()), TRANSACTION_OPTIONS);
    if (result.events.length > 0) {
      this.#options.publisher.publishEvents(change.runId, result.events).catch((error: unknown) => this.#options.onPublishError?.(error));
    }
    return result;
  }
}

/** The transactional body of a commit, for callers that compose it into a larger transaction. */
export async function applyRunChange(tx: TransactionClient, change: RunChange, now: Date): Promise<CommitResult> {
  const prepared = change.prepare ? await change.prepare(tx) : [];
  const events = [...prepared, ...(change.events ?? [])];
  const where =
    "leaseVersion" in change.condition
      ? { id: change.runId, leaseVersion: change.condition.leaseVersion }
      : { id: change.runId, status: { in: [...change.condition.statusIn] } };
  // A write conditioned on status is made by someone who holds no lease: it bumps the fencing
  // version, so a worker that took the run meanwhile cannot overwrite it with its next step.
  const fence = "statusIn" in change.condition ? { leaseVersion: { increment: 1 } } : {};
  const updated = await tx.run.updateManyAndReturn({
    where,
    data: { ...change.update, ...fence, lastEventSeq: { increment: events.length }, updatedAt: now },
    select: { id: true, status: true, cancelRequested: true, lastEventSeq: true, leaseVersion: true },
  });
  const run = updated[0];
  if (!run) {
    if ("leaseVersion" in change.condition) throw new LeaseLostError(change.runId);
    throw new RunStateConflictError(change.runId, "the run changed state meanwhile; fetch it again");
  }
  const firstSeq = run.lastEventSeq - events.length + 1;
  const records: RunEventRecord[] = events.map((event, index) => ({
    seq: firstSeq + index,
    type: event.type,
    at: now.toISOString(),
    data: event.data,
  }));
  if (records.length > 0) {
    await tx.runEvent.createMany({
      data: records.map((record) => ({ runId: change.runId, seq: record.seq, type: record.type, data: record.data as Prisma.InputJsonValue, createdAt: now })),
    });
  }
  await change.write?.(tx, run);
  return { run, events: records };
}
