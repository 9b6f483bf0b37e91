import { randomUUID } from "node:crypto";
import pg from "pg";
import { describeDatabaseUrl } from "./database-url.ts";
import { ensureDatabase } from "./ensure-database.ts";
import { MigrationLockTimeoutError, MigrationSqlError } from "./migration-errors.ts";
import { ensureMigrationsTable, insertMigrationRecord, readMigrationRecords } from "./migrations-table.ts";
import { planMigrations } from "./plan-migrations.ts";
import { readMigrations, type MigrationFile } from "./read-migrations.ts";
import { sqlState } from "./sql-state.ts";

/** The subset of a pino logger the migrator uses; a pino `Logger` fits as is. */
export interface MigrationLogger {
  info(details: Record<string, unknown>, message: string): void;
}

export interface ApplyMigrationsOptions {
  /** Postgres URL of the database to migrate. Its password never appears in logs or errors. */
  databaseUrl: string;
  /** A Prisma migrations directory (`<timestamp>_<name>/migration.sql` + migration_lock.toml). */
  migrationsDirectory: string;
  /** Receives one line per step (database created, each migration applied, summary). Default: silent. */
  logger?: MigrationLogger;
  /**
   * Create the database when it does not exist. Default true: a fresh machine needs nothing but
   * `npm run migrate` (docs/design.md, "Environment this is built and tested on").
   */
  createDatabase?: boolean;
  /**
   * How long to wait for another migrator's lock before giving up. Default 300000 (5 minutes):
   * long enough to outwait a real migration run by a sibling process, short enough that a session
   * stuck holding the lock is reported instead of hanging a deploy forever.
   */
  lockTimeoutMs?: number;
}

export interface ApplyMigrationsResult {
  /** Whether this run created the database. */
  databaseCreated: boolean;
  /** Migrations this run applied, in order. */
  applied: string[];
  /** Migrations that were applied before this run. */
  alreadyApplied: string[];
}

/**
 * Prisma Migrate's advisory lock key (schema engine, postgres flavour): holding the same key
 * makes this command and `prisma migrate deploy` exclude each other as well as themselves.
 */
export const MIGRATION_ADVISORY_LOCK_KEY = 72707369;

const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Applies the pending migrations of a Prisma migrations directory and records them in
 * `_prisma_migrations` as Prisma does. Each migration runs in one transaction together with its
 * record, so a failure leaves neither; the whole run holds an advisory lock, so processes started
 * at the same time apply each migration exactly once. Migrations must therefore be
 * transaction-safe (no `CREATE INDEX CONCURRENTLY`, no BEGIN/COMMIT of their own).
 */
export async function applyMigrations(options: ApplyMigrationsOptions): Promise<ApplyMigrationsResult> {
  const logger = options.logger;
  const target = describeDatabaseUrl(options.databaseUrl);
  // Read the files first: a malformed directory should fail before anything touches the database.
  const files = await readMigrations(options.migrationsDirectory);

  let databaseCreated = false;
  if (options.createDatabase ?? true) {
    databaseCreated = (await ensureDatabase({ databaseUrl: options.databaseUrl })).created;
    if (databaseCreated) logger?.info({ database: target.database, host: target.host }, "created database");
  }

  const client = new pg.Client({ connectionString: options.databaseUrl });
  // A connection lost mid-run also rejects the pending query, which is where it is reported;
  // without a listener the same 'error' event would crash the process instead.
  client.on("error", () => undefined);
  await client.connect();
  try {
    await acquireLock(client, options.lockTimeoutMs ?? 300_000, target.database);
    try {
      await ensureMigrationsTable(client);
      const plan = planMigrations(files, await readMigrationRecords(client), options.migrationsDirectory);
      for (const migration of plan.pending) {
        const startedAt = Date.now();
        await applyOne(client, migration);
        logger?.info({ migration: migration.name, durationMs: Date.now() - startedAt }, "applied migration");
      }
      const applied = plan.pending.map((migration) => migration.name);
      logger?.info(
        { database: target.database, applied: applied.length, alreadyApplied: plan.alreadyApplied.length },
        applied.length === 0 ? "database schema is up to date" : `applied ${applied.length} migration(s)`,
      );
      return { databaseCreated, applied, alreadyApplied: plan.alreadyApplied };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_ADVISORY_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    // Closing the session releases the advisory lock even if the unlock above failed.
    await client.end().catch(() => undefined);
  }
}

async function acquireLock(client: pg.Client, lockTimeoutMs: number, database: string): Promise<void> {
  // lock_timeout bounds the wait for the advisory lock; it is reset before any migration runs so
  // a migration's own lock waits behave as on any other session.
  await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_ADVISORY_LOCK_KEY]);
  } catch (error) {
    if (sqlState(error) === LOCK_NOT_AVAILABLE) throw new MigrationLockTimeoutError({ lockTimeoutMs, database });
    throw error;
  } finally {
    await client.query("RESET lock_timeout");
  }
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  await client.query("BEGIN");
  try {
    // No parameters: pg sends the simple query protocol, which runs a multi-statement script.
    await client.query(migration.sql);
    await insertMigrationRecord(client, { id: randomUUID(), migrationName: migration.name, checksum: migration.checksum });
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    const details = error instanceof pg.DatabaseError ? { sqlState: error.code, position: error.position } : { sqlState: undefined, position: undefined };
    throw new MigrationSqlError(migration.name, details, error);
  }
}
