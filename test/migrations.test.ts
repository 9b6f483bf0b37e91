import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, it } from "vitest";
import { applyMigrations } from "@agentq/core/migrations";
import { MigrationError } from "../packages/core/src/store/migrations/migration-errors.ts";
import { withDatabase } from "../packages/core/src/store/migrations/database-url.ts";
import { ADMIN_DATABASE_URL, dropTestDatabase, newTestDatabaseName, testDatabaseUrl, withAdminClient } from "./support/database.ts";

const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));
const MIGRATIONS_DIRECTORY = join(repositoryRoot, "prisma/migrations");

const createdDatabases: string[] = [];
const temporaryDirectories: string[] = [];

/** A name for a database that does not exist yet; dropped after the file. */
function freshDatabase(): { name: string; url: string } {
  const name = newTestDatabaseName();
  createdDatabases.push(name);
  return { name, url: testDatabaseUrl(name) };
}

async function copyOfMigrations(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "agentq-migrations-"));
  temporaryDirectories.push(directory);
  await cp(MIGRATIONS_DIRECTORY, directory, { recursive: true });
  return directory;
}

async function migrationNames(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const migrationRows = (url: string) => query<MigrationRow>(url, "SELECT * FROM _prisma_migrations ORDER BY migration_name, started_at");

/**
 * Runs the migrate command to completion as its own process. `node --import tsx` rather than
 * `npx tsx`: the same single process `npm start` spawns, without npx's and tsx's extra processes,
 * which cost seconds each on a loaded CI machine.
 */
function runMigrateCommand(environment: Record<string, string>): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], {
      cwd: repositoryRoot,
      env: { ...process.env, ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

function logLines(stdout: string): { msg?: string; migration?: string; code?: string }[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg?: string; migration?: string; code?: string });
}

afterAll(async () => {
  for (const name of createdDatabases) await dropTestDatabase(name);
  for (const directory of temporaryDirectories) await rm(directory, { recursive: true, force: true });
});

// Each test uses its own database (and directory copy), so they run concurrently.
describe.concurrent("applyMigrations", () => {
  it("creates a missing database and applies every migration; a second run applies nothing", async ({ expect }) => {
    const database = freshDatabase();
    const expected = await migrationNames(MIGRATIONS_DIRECTORY);
    expect(expected.length).toBeGreaterThan(0);

    const first = await applyMigrations({ databaseUrl: database.url, migrationsDirectory: MIGRATIONS_DIRECTORY });
    expect(first).toEqual({ databaseCreated: true, applied: expected, alreadyApplied: [] });
    const tables = await query<{ tablename: string }>(database.url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.map((row) => row.tablename)).toEqual(expect.arrayContaining(["_prisma_migrations", "runs", "users"]));

    const rowsAfterFirst = await migrationRows(database.url);
    const second = await applyMigrations({ databaseUrl: database.url, migrationsDirectory: MIGRATIONS_DIRECTORY });
    expect(second).toEqual({ databaseCreated: false, applied: [], alreadyApplied: expected });
    expect(await migrationRows(database.url)).toEqual(rowsAfterFirst);
  });

  it("records each migration the way Prisma does", async ({ expect }) => {
    const database = freshDatabase();
    await applyMigrations({ databaseUrl: database.url, migrationsDirectory: MIGRATIONS_DIRECTORY });

    const rows = await migrationRows(database.url);
    expect(rows.map((row) => row.migration_name)).toEqual(await migrationNames(MIGRATIONS_DIRECTORY));
    for (const row of rows) {
      const file = await readFile(join(MIGRATIONS_DIRECTORY, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(file).digest("hex"));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.applied_steps_count).toBe(1);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
    }

    // The history table itself has Prisma's shape, so `prisma migrate deploy` can read and extend it.
    const columns = await query<{ column_name: string; type: string; not_null: boolean; default: string | null }>(
      database.url,
      `SELECT attname AS column_name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null,
              pg_get_expr(adbin, adrelid) AS default
         FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
        WHERE attrelid = '_prisma_migrations'::regclass AND attnum > 0 AND NOT attisdropped
        ORDER BY attnum`,
    );
    expect(columns).toEqual([
      { column_name: "id", type: "character varying(36)", not_null: true, default: null },
      { column_name: "checksum", type: "character varying(64)", not_null: true, default: null },
      { column_name: "finished_at", type: "timestamp with time zone", not_null: false, default: null },
      { column_name: "migration_name", type: "character varying(255)", not_null: true, default: null },
      { column_name: "logs", type: "text", not_null: false, default: null },
      { column_name: "rolled_back_at", type: "timestamp with time zone", not_null: false, default: null },
      { column_name: "started_at", type: "timestamp with time zone", not_null: true, default: "now()" },
      { column_name: "applied_steps_count", type: "integer", not_null: true, default: "0" },
    ]);
    const primaryKey = await query<{ definition: string }>(
      database.url,
      "SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = '_prisma_migrations'::regclass AND contype = 'p'",
    );
    expect(primaryKey).toEqual([{ definition: "PRIMARY KEY (id)" }]);
  });

  it("refuses a migration edited after it was applied, naming it", async ({ expect }) => {
    const directory = await copyOfMigrations();
    const database = freshDatabase();
    await applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory });
    const [first] = await migrationNames(directory);
    const file = join(directory, first!, "migration.sql");
    await writeFile(file, `${await readFile(file, "utf8")}\n-- edited after it was applied\n`);

    const refusal = applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory });
    await expect(refusal).rejects.toBeInstanceOf(MigrationError);
    await expect(refusal).rejects.toMatchObject({
      code: "migration_checksum_mismatch",
      message: expect.stringMatching(new RegExp(`migration ${first} was modified after it was applied.*new migration`)),
    });
  });

  it("refuses to run while a migration is recorded as started and unfinished", async ({ expect }) => {
    const directory = await copyOfMigrations();
    const database = freshDatabase();
    await applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory });
    // What `prisma migrate deploy` leaves behind when a migration fails half-way.
    await query(database.url, `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ($1, $2, '20990101000000_half_done', 'boom')`, [
      crypto.randomUUID(),
      "0".repeat(64),
    ]);
    await mkdir(join(directory, "20990101000000_half_done"));
    await writeFile(join(directory, "20990101000000_half_done", "migration.sql"), "CREATE TABLE half_done_probe (id INTEGER);\n");

    await expect(applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory })).rejects.toMatchObject({
      code: "migration_failed_previously",
      message: expect.stringContaining("migration 20990101000000_half_done started earlier and did not finish"),
    });
    expect(await query(database.url, "SELECT to_regclass('half_done_probe') AS table")).toEqual([{ table: null }]);

    // Marked rolled back (what `prisma migrate resolve --rolled-back` writes), it is applied anew.
    await query(database.url, "UPDATE _prisma_migrations SET rolled_back_at = now() WHERE finished_at IS NULL");
    const retry = await applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory });
    expect(retry.applied).toEqual(["20990101000000_half_done"]);
  });

  it("rolls back a failing migration together with its record", async ({ expect }) => {
    const directory = await copyOfMigrations();
    const database = freshDatabase();
    await mkdir(join(directory, "20990101000000_broken"));
    const file = join(directory, "20990101000000_broken", "migration.sql");
    await writeFile(file, "CREATE TABLE broken_probe (id INTEGER);\nSELECT 1 / 0;\n");

    await expect(applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory })).rejects.toMatchObject({
      code: "migration_sql_failed",
      message: expect.stringMatching(/migration 20990101000000_broken failed and was rolled back.*division by zero/),
    });
    expect(await query(database.url, "SELECT to_regclass('broken_probe') AS table")).toEqual([{ table: null }]);
    const names = (await migrationRows(database.url)).map((row) => row.migration_name);
    expect(names).toEqual(await migrationNames(MIGRATIONS_DIRECTORY));

    await writeFile(file, "CREATE TABLE broken_probe (id INTEGER);\n");
    const retry = await applyMigrations({ databaseUrl: database.url, migrationsDirectory: directory });
    expect(retry.applied).toEqual(["20990101000000_broken"]);
  });

  it("tells a role that may not create the database what to run", async ({ expect }) => {
    const role = `agentq_test_role_${randomBytes(4).toString("hex")}`;
    await withAdminClient((client) => client.query(`CREATE ROLE ${role} LOGIN NOCREATEDB`));
    try {
      const database = freshDatabase();
      const url = new URL(withDatabase(ADMIN_DATABASE_URL, database.name));
      url.username = role;
      await expect(applyMigrations({ databaseUrl: url.toString(), migrationsDirectory: MIGRATIONS_DIRECTORY })).rejects.toMatchObject({
        code: "database_create_forbidden",
        message: expect.stringMatching(new RegExp(`createdb -h 127\\.0\\.0\\.1 -p 5432 -O ${role} ${database.name}.*CREATE DATABASE "${database.name}"`)),
      });
      expect(await query(ADMIN_DATABASE_URL, "SELECT 1 FROM pg_database WHERE datname = $1", [database.name])).toEqual([]);
    } finally {
      await withAdminClient((client) => client.query(`DROP ROLE ${role}`));
    }
  });
});

describe.concurrent("npm run migrate (scripts/migrate.ts)", () => {
  it("four processes started at once apply each migration exactly once", async ({ expect }) => {
    const database = freshDatabase();
    const results = await Promise.all(Array.from({ length: 4 }, () => runMigrateCommand({ DATABASE_URL: database.url })));

    for (const result of results) expect(result, result.stderr).toMatchObject({ exitCode: 0 });
    const expected = await migrationNames(MIGRATIONS_DIRECTORY);
    const rows = await migrationRows(database.url);
    expect(rows.map((row) => row.migration_name)).toEqual(expected);
    // Exactly one process reports applying each migration; the others found nothing pending.
    const appliedLines = results.flatMap((result) => logLines(result.stdout).filter((line) => line.msg === "applied migration"));
    expect(appliedLines.map((line) => line.migration).sort()).toEqual(expected);
    const upToDate = results.filter((result) => logLines(result.stdout).some((line) => line.msg === "database schema is up to date"));
    expect(upToDate).toHaveLength(3);
  });

  it("exits non-zero with the reason, and never prints the password", async ({ expect }) => {
    const database = freshDatabase();
    await applyMigrations({ databaseUrl: database.url, migrationsDirectory: MIGRATIONS_DIRECTORY });
    await query(
      database.url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
       VALUES ($1, $2, '20990101000000_from_the_future', now(), 1)`,
      [crypto.randomUUID(), "0".repeat(64)],
    );
    const password = `pw-${randomBytes(8).toString("hex")}`;
    const url = new URL(database.url);
    url.password = password; // trust authentication ignores it; the command must still hide it

    const result = await runMigrateCommand({ DATABASE_URL: url.toString() });
    expect(result.exitCode).toBe(1);
    const errorLine = logLines(result.stdout).find((line) => line.code === "migration_missing_from_directory");
    expect(errorLine?.msg).toContain("migration 20990101000000_from_the_future is applied in the database but missing");
    expect(result.stdout + result.stderr).not.toContain(password);
  });
});
