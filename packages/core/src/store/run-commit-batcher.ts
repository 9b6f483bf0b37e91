import pg from "pg";
import type { Clock } from "../clock.ts";
import { type CommittedChange, commitRunStatement, commitRunStatements, type RunStatementChange } from "./run-statement.ts";
import type { SqlRunner } from "./sql-pool.ts";

/** Commits a run's staged change (the loop's one commit path, RunExecution.flush). */
export interface RunCommitter {
  /** `chatId`: the run's chat; two runs of one chat never share a statement. Resolves as commitRunStatement does. */
  commit(change: RunStatementChange, chatId: string): Promise<CommittedChange | null>;
}

export interface RunCommitBatcherOptions {
  runner: SqlRunner;
  clock: Clock;
  /** Changes in one statement, at most. Default 64. */
  maxBatch?: number;
  /**
   * Statements in flight at once; further changes wait and go together in the next one. Default 1:
   * with two, the steps were split over more statements than Postgres needed, and Postgres' CPU goes
   * mostly to statements, not to rows. Seven interleaved pairs at 50 in flight (7 December 2026): with
   * one, W2 ran at 89.6 runs/s against 82.3 (ahead in all seven) with 5.5–6.4 ms of Postgres CPU a run
   * against 6.1–7.1, W1 at 128 against 123 (ahead in five); a decided approval's resume (p50 136
   * against 142 ms) and one run at a time (a lone step goes at once) unchanged.
   */
  maxInFlight?: number;
}

interface Waiting {
  change: RunStatementChange;
  chatId: string;
  resolve(committed: CommittedChange | null): void;
  reject(error: unknown): void;
}

/**
 * Group commit: the steps that many runs of a worker commit at the same moment go to Postgres as one
 * statement and one transaction (commitRunStatements) instead of one each. A step waits for nothing
 * when fewer than `maxInFlight` statements are running: it goes alone at once; only under load do
 * steps queue, for at most one statement's time, and then share the next. Each run's result is its
 * own: a fence that refused one run refuses only that run; a statement that Postgres refused (one
 * change breaking a constraint: the whole statement rolled back) is retried change by change, so the
 * others still commit. Any other failure (the connection lost) may have come after the commit: it is
 * passed to every step unretried, as a lone commit's is, so no change can be written twice.
 */
export function createRunCommitBatcher(options: RunCommitBatcherOptions): RunCommitter {
  const maxBatch = options.maxBatch ?? 64;
  const maxInFlight = options.maxInFlight ?? 1;
  const queue: Waiting[] = [];
  let inFlight = 0;

  const takeBatch = (): Waiting[] => {
    const batch: Waiting[] = [];
    const chats = new Set<string>();
    for (let index = 0; index < queue.length && batch.length < maxBatch; ) {
      const waiting = queue[index] as Waiting;
      if (chats.has(waiting.chatId)) {
        index += 1;
        continue;
      }
      chats.add(waiting.chatId);
      batch.push(waiting);
      queue.splice(index, 1);
    }
    return batch;
  };

  const send = async (batch: Waiting[]): Promise<void> => {
    try {
      const results = await commitRunStatements(
        options.runner,
        batch.map((waiting) => waiting.change),
        options.clock(),
      );
      for (const [index, waiting] of batch.entries()) waiting.resolve(results[index] ?? null);
    } catch (error) {
      if (batch.length === 1 || !(error instanceof pg.DatabaseError)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        await commitRunStatement(options.runner, waiting.change, options.clock()).then(waiting.resolve, waiting.reject);
      }
    }
  };

  const pump = () => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = takeBatch();
      inFlight += 1;
      void send(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return {
    commit(change, chatId) {
      return new Promise((resolve, reject) => {
        queue.push({ change, chatId, resolve, reject });
        pump();
      });
    },
  };
}
