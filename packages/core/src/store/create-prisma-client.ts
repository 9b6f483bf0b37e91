import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client.ts";

export { PrismaClient };
export { Prisma } from "./generated/client.ts";

export interface SqlPoolOptions {
  databaseUrl: string;
  /** Pool size of the pg driver. Default 10: pg's own default, enough for one process. */
  poolSize?: number;
}

/** A Prisma client's options are its pool's. */
export type CreatePrismaClientOptions = SqlPoolOptions;

const sqlPools = new WeakMap<PrismaClient, pg.Pool>();

/**
 * How often each connection plans its prepared statements again (see createSqlPool). Planning
 * the hot path's large statements costs a few milliseconds each: at every 10 s it was about 8% of
 * Postgres' time in the PARKED benchmark, at 30 s it is under 3%.
 */
const REPLAN_INTERVAL_MS = 30_000;

/**
 * A Prisma client over the pg driver adapter (Prisma 7: no engine binary), on a pool made by
 * createSqlPool. The pool is also reachable through `sqlPoolOf` for the hot-path statements
 * (store/sql-pool.ts); `$disconnect` closes it.
 */
export function createPrismaClient(options: CreatePrismaClientOptions): PrismaClient {
  const pool = createSqlPool(options);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const disconnect = prisma.$disconnect.bind(prisma);
  prisma.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  sqlPools.set(prisma, pool);
  return prisma;
}

/**
 * A pg pool for agentq's SQL, set up as below, without a Prisma client: for a process part that runs
 * only hand-written statements (the worker's lease renewals). A Prisma client builds its data model's
 * graph when it is made, about 5 MB of heap that every full collection marks; `end()` closes the pool.
 */
export function createSqlPool(options: SqlPoolOptions): pg.Pool {
  // idleTimeoutMillis 0: connections stay open while the process lives (pg's default closes them
  // after 10 s idle). A new backend starts with cold catalog caches and none of the hot path's
  // prepared statements, so reopening connections after a quiet spell put 20-60 ms into the next
  // approval decisions. The pool stays bounded by `max`; the processes end it on shutdown.
  //
  // plan_cache_mode force_generic_plan: the hot path's named statements (store/statements/, the step
  // commit) are planned once per connection instead of at every execution. Postgres would otherwise
  // re-plan the step commit, a dozen CTEs over jsonb parameters, at every bind (about 0.3 ms of its CPU
  // per commit, six commits per run); all of them look rows up by key, which a generic plan does as
  // well. Prisma's own queries are unnamed statements, planned once each way.
  //
  // A generic plan is made once, often while the tables are nearly empty (a new deployment, a
  // connection's first minutes), and kept until something invalidates it: an ANALYZE, or a VACUUM of
  // a table it reads (a connection's first take of a run after `VACUUM runs` took 5.8 ms against 1,
  // planning again). Where autovacuum is off, only the worker's sweep vacuums, and only `runs`
  // (runs/vacuum-runs.ts): a plan of a statement that reads no run would be kept for good. On a table
  // of a few pages every lookup is estimated at one row: a sequential scan is then the cheapest way to
  // find anything, and of two indexes the planner takes the one with fewer conditions to check. Kept at
  // ten thousand runs, such plans read every run at each step commit, and every approval of the user at
  // each decision (the (user_id, ...) index instead of the key). So every REPLAN_INTERVAL_MS each
  // connection drops its plans (DISCARD PLANS, before the next statement it is handed out for) and
  // plans again at the tables' present size. enable_seqscan off covers the first interval: every query
  // here finds its rows through an index (a table no index serves, settings, is still scanned).
  //
  // enable_bitmapscan off: plain index scans only. A run's row is updated a dozen times in its life,
  // and until a vacuum each update leaves index entries of the dead version behind. A plain index scan
  // that meets one marks it dead, so the next scans skip it; a bitmap scan visits it again every time.
  // With bitmap scans, counting the few running runs at each admission read every run that had run
  // since the last vacuum (1,600 pages at 10,000 parked runs). A lookup that needs two indexes at once
  // is written as a UNION ALL of one lookup each (the run context's grants).
  //
  // jit off: with scans disabled the estimated costs exceed the JIT thresholds, and compiling a short
  // statement costs far more than running it (seconds, measured).
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 0,
    options: "-c plan_cache_mode=force_generic_plan -c enable_seqscan=off -c enable_bitmapscan=off -c jit=off",
  });
  // An idle connection that dies (a Postgres restart) must not crash the process; the next query
  // on the pool opens a new one, and a failing query reports its own error.
  pool.on("error", () => undefined);
  const plannedAt = new WeakMap<pg.PoolClient, number>();
  pool.on("connect", (client) => plannedAt.set(client, Date.now()));
  pool.on("acquire", (client) => {
    const now = Date.now();
    if (now - (plannedAt.get(client) ?? now) < REPLAN_INTERVAL_MS) return;
    plannedAt.set(client, now);
    // Queued on the client ahead of the statement it was acquired for. A failure concerns only this
    // statement: the plans stay, and the connection's next statement reports its own error.
    client.query("DISCARD PLANS").catch(() => undefined);
  });
  return pool;
}

/** The pg pool under a client made by `createPrismaClient`. */
export function sqlPoolOf(prisma: PrismaClient): pg.Pool {
  const pool = sqlPools.get(prisma);
  if (!pool) throw new Error("this Prisma client was not made by createPrismaClient: it has no pg pool to share");
  return pool;
}

/** A Prisma client or an interactive transaction client: functions that write accept either. */
export type Db = PrismaClient | Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * Options of every interactive transaction. Prisma's defaults (wait 2 s for a connection, abort
 * after 5 s) turn a busy moment into a failed request; these transactions are short, so the limits
 * only guard against a stuck one.
 */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;
