import { AgentqError } from "../../errors/agentq-error.ts";

/**
 * Why the migrate command refused or failed. Each message names the migration and says what to do;
 * `details.migration` carries the name for callers that log structured fields.
 */
export class MigrationError extends AgentqError {}

/** A migration recorded as applied no longer has the checksum of its file: someone edited it afterwards. */
export class MigrationChecksumMismatchError extends MigrationError {
  constructor(migration: string, details: { recordedChecksum: string; fileChecksum: string }) {
    super(
      "migration_checksum_mismatch",
      `migration ${migration} was modified after it was applied: restore its migration.sql to the applied ` +
        `version and put the change in a new migration directory instead`,
      { migration, ...details },
    );
  }
}

/** A migration is recorded as started and never finished (e.g. by `prisma migrate deploy`, which is not transactional). */
export class MigrationFailedPreviouslyError extends MigrationError {
  constructor(migration: string, details: { startedAt: Date; logs: string | null }) {
    super(
      "migration_failed_previously",
      `migration ${migration} started earlier and did not finish: inspect the database, undo or complete its ` +
        `partial changes by hand, then run \`npx prisma migrate resolve --rolled-back ${migration}\` ` +
        `(or set rolled_back_at on its _prisma_migrations row) and migrate again`,
      { migration, ...details },
    );
  }
}

/** The database has an applied migration that the migrations directory does not contain. */
export class MigrationMissingFromDirectoryError extends MigrationError {
  constructor(migration: string, details: { migrationsDirectory: string }) {
    super(
      "migration_missing_from_directory",
      `migration ${migration} is applied in the database but missing from ${details.migrationsDirectory}: ` +
        `this code is older than the database (deploy the newer code), or the directory was renamed or ` +
        `deleted (restore it)`,
      { migration, ...details },
    );
  }
}

/** A migration's SQL failed. Its transaction was rolled back, so nothing of it remains applied. */
export class MigrationSqlError extends MigrationError {
  constructor(migration: string, details: { sqlState: string | undefined; position: string | undefined }, cause: unknown) {
    super(
      "migration_sql_failed",
      `migration ${migration} failed and was rolled back (nothing of it was applied): ` +
        `${cause instanceof Error ? cause.message : String(cause)}; fix its SQL and migrate again`,
      { migration, ...details },
      { cause },
    );
  }
}

/** The migrations directory is unreadable or malformed (a migration without migration.sql, a foreign provider). */
export class MigrationsDirectoryError extends MigrationError {
  constructor(message: string, details: Record<string, unknown>) {
    super("migrations_directory_invalid", message, details);
  }
}

/** Another migrator held the advisory lock for longer than the configured wait. */
export class MigrationLockTimeoutError extends MigrationError {
  constructor(details: { lockTimeoutMs: number; database: string }) {
    super(
      "migration_lock_timeout",
      `another migration run held the migration lock on database ${details.database} for more than ` +
        `${details.lockTimeoutMs} ms: wait for it to finish (or find the session holding pg_advisory_lock(72707369) ` +
        `in pg_locks) and migrate again`,
      details,
    );
  }
}

/** The database named in the URL does not exist and this role may not create it. */
export class DatabaseCreateForbiddenError extends MigrationError {
  constructor(details: { database: string; user: string; host: string; port: string }, cause: unknown) {
    super(
      "database_create_forbidden",
      `database "${details.database}" does not exist and role "${details.user}" may not create it: ask an admin to run ` +
        `\`createdb -h ${details.host} -p ${details.port} -O ${details.user} ${details.database}\` ` +
        `(or the SQL \`CREATE DATABASE "${details.database}" OWNER "${details.user}";\`), then migrate again`,
      details,
      { cause },
    );
  }
}
