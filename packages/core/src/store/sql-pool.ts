import type pg from "pg";
import type { z } from "zod";

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

async function runStatement(runner: SqlRunner, statement: string | PreparedSql, values: readonly unknown[]): Promise<pg.QueryResult> {
  return typeof statement === "string"
    ? runner.query(statement, values as unknown[])
    : runner.query({ name: statement.name, text: statement.text, values: values as unknown[] });
}

/**
 * The rows of one parameterized statement, each parsed by `row` (a zod object schema of its columns):
 * a column renamed, missing or of another type fails here, naming the statement and the column,
 * rather than as an undefined far from the query. Unknown columns are dropped. The hot path can afford
 * it: the step commit's row parses in about 0.1 µs (zod 4, this project's machine).
 */
export async function queryParsed<Schema extends z.ZodObject>(
  runner: SqlRunner,
  statement: string | PreparedSql,
  values: readonly unknown[],
  row: Schema,
): Promise<z.output<Schema>[]> {
  const { rows } = await runStatement(runner, statement, values);
  return rows.map((candidate: unknown) => {
    const parsed = row.safeParse(candidate);
    if (!parsed.success) throw new SqlRowError(statement, parsed.error);
    return parsed.data;
  });
}

/** How many rows a statement that returns none changed (an UPDATE, an INSERT, a lock). */
export async function queryRowCount(runner: SqlRunner, statement: string | PreparedSql, values: readonly unknown[] = []): Promise<number> {
  return (await runStatement(runner, statement, values)).rowCount ?? 0;
}

/** A row did not match its statement's schema: the SQL and the code that reads it disagree (a bug, not a state). */
export class SqlRowError extends Error {
  constructor(statement: string | PreparedSql, error: z.ZodError) {
    const label = typeof statement === "string" ? statement.trim().split("\n")[0]?.slice(0, 80) : statement.name;
    const issues = error.issues.map((issue) => `${issue.path.join(".") || "(row)"}: ${issue.message}`).join("; ");
    super(`a row of ${label} does not match its schema: ${issues}`, { cause: error });
    this.name = "SqlRowError";
  }
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
