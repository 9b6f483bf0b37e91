import type pg from "pg";

/**
 * What a hot-path statement runs on: the pg pool under the Prisma client (one pool, two ways in),
 * or a client checked out of it for a transaction. Plain pg costs a quarter of Prisma's interactive
 * transaction for the same statements (bench: a 3-statement transaction, 0.57 ms against 2.05 ms),
 * which is why the paths a run's latency depends on (taking a run, loading it, committing a step,
 * deciding an approval, authenticating) speak SQL here and everything else goes through Prisma.
 */
export type SqlRunner = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * A statement prepared once per connection under its name (Postgres then reuses the plan): for the
 * large statements of the hot path, planning costs as much as executing (the step commit: about
 * 0.5 ms each way on this project's bench machine).
 */
export interface PreparedSql {
  readonly name: string;
  readonly text: string;
}

export function preparedSql(name: string, text: string): PreparedSql {
  return Object.freeze({ name: `agentq_${name}`, text });
}

/** The rows of one parameterized statement. */
export async function queryRows<Row>(runner: SqlRunner, statement: string | PreparedSql, values: readonly unknown[] = []): Promise<Row[]> {
  const result =
    typeof statement === "string"
      ? await runner.query(statement, values as unknown[])
      : await runner.query({ name: statement.name, text: statement.text, values: values as unknown[] });
  return result.rows as Row[];
}

export interface SqlTransactionOptions {
  /**
   * How long a statement waits for a row lock before the transaction fails (`lock_timeout`).
   * Default 10 s: transactions here are short, so only a stuck one is refused.
   */
  lockTimeoutMs?: number;
}

/**
 * Runs `work` in one transaction on a client of the pool: committed if it returns, rolled back if
 * it throws. A client whose rollback failed is discarded rather than returned to the pool.
 */
export async function inSqlTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: SqlTransactionOptions = {}): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // One round trip: the simple-query protocol takes both statements at once.
    await client.query(`BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.floor(options.lockTimeoutMs ?? 10_000))}`);
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}
