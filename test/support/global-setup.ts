// Once per `vitest run`: migrate the template database that test files clone (database.ts), and drop
// databases that earlier, interrupted runs left behind.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "@agentq/core/store/migrations/apply-migrations";
import {
  TEMPLATE_DATABASE_ENV,
  TEMPLATE_DATABASE_PREFIX,
  TEST_DATABASE_PREFIX,
  dropTestDatabase,
  testDatabaseCreatedAt,
  testDatabaseUrl,
  withAdminClient,
} from "./database.ts";

export const MIGRATIONS_DIRECTORY = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

/** Databases older than this are leftovers: no test run lasts an hour. */
const STALE_AFTER_MS = 60 * 60 * 1000;

export default async function setup(project: TestProject): Promise<void> {
  const template = await prepareTemplateDatabase();
  project.provide("agentqTemplateDatabase", template);
  // For child processes that tests spawn with this environment (they cannot call `inject`).
  process.env[TEMPLATE_DATABASE_ENV] = template;
  await dropStaleDatabases(template);
}

/**
 * Migrates (creating it if needed) the template named after a hash of the migrations directory:
 * an edited or added migration gets a fresh template, and runs with the same migrations share
 * one. The migrator's advisory lock makes concurrent runs on one server safe.
 */
export async function prepareTemplateDatabase(): Promise<string> {
  const name = `${TEMPLATE_DATABASE_PREFIX}${await hashDirectory(MIGRATIONS_DIRECTORY)}`;
  await applyMigrations({ databaseUrl: testDatabaseUrl(name), migrationsDirectory: MIGRATIONS_DIRECTORY });
  // Templates are reused across runs, so their age is their last use, kept in a comment.
  await withAdminClient((client) =>
    client.query(`COMMENT ON DATABASE ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(new Date().toISOString())}`),
  );
  return name;
}

async function hashDirectory(directory: string): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(directory, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash.update(relative(directory, file)).update("\0").update(await readFile(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 12);
}

async function dropStaleDatabases(currentTemplate: string): Promise<void> {
  const staleBefore = Date.now() - STALE_AFTER_MS;
  const rows = await withAdminClient(async (client) => {
    const result = await client.query<{ datname: string; comment: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS comment
         FROM pg_database
        WHERE starts_with(datname, $1) OR starts_with(datname, $2)`,
      [TEST_DATABASE_PREFIX, TEMPLATE_DATABASE_PREFIX],
    );
    return result.rows;
  });
  for (const row of rows) {
    const createdOrUsedAt = row.datname.startsWith(TEST_DATABASE_PREFIX)
      ? testDatabaseCreatedAt(row.datname)
      : row.datname === currentTemplate
        ? undefined
        : new Date(row.comment ?? 0);
    if (createdOrUsedAt === undefined || Number.isNaN(createdOrUsedAt.getTime()) || createdOrUsedAt.getTime() >= staleBefore) continue;
    // Another run may be dropping the same leftover: a failure here must not fail this run.
    await dropTestDatabase(row.datname).catch(() => undefined);
  }
}
