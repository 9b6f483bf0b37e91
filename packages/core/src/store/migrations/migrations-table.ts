import type pg from "pg";
import type { MigrationRecord } from "./plan-migrations.ts";

/**
 * The history table, created with the DDL Prisma's schema engine uses for PostgreSQL
 * (sql-schema-connector, `create_migrations_table`), so `prisma migrate deploy` can take over a
 * database migrated by this command and vice versa.
 */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export async function ensureMigrationsTable(client: pg.ClientBase): Promise<void> {
  await client.query(CREATE_MIGRATIONS_TABLE);
}

export async function readMigrationRecords(client: pg.ClientBase): Promise<MigrationRecord[]> {
  const result = await client.query<{
    migration_name: string;
    checksum: string;
    started_at: Date;
    finished_at: Date | null;
    rolled_back_at: Date | null;
    logs: string | null;
  }>(
    `SELECT migration_name, checksum, started_at, finished_at, rolled_back_at, logs
       FROM _prisma_migrations
      ORDER BY started_at, migration_name`,
  );
  return result.rows.map((row) => ({
    migrationName: row.migration_name,
    checksum: row.checksum,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    rolledBackAt: row.rolled_back_at,
    logs: row.logs,
  }));
}

/**
 * Records a migration as Prisma does after a successful apply: a uuid id, the file's checksum,
 * `applied_steps_count` 1 (Prisma applies a migration.sql as one step). Runs inside the migration's
 * transaction, so `started_at` (`now()`) is when the transaction began and `finished_at` is the
 * wall-clock time after the script.
 */
export async function insertMigrationRecord(client: pg.ClientBase, record: { id: string; migrationName: string; checksum: string }): Promise<void> {
  await client.query(
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
    [record.id, record.checksum, record.migrationName],
  );
}
