// Once per `vitest run`: migrate the template database that test files clone (database.ts), drop
// databases that earlier, interrupted runs left behind, and build the web console and the server if their builds are stale.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "@agentq/core/migrations";
import { ensureConsoleBuilt } from "../../scripts/ensure-console-built.mjs";
import { ensureServerBuilt } from "../../scripts/server-bundle.mjs";
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
  // The browser tests load the console the API serves: a build older than its sources would test old code.
  ensureConsoleBuilt();
  // The API and worker processes that tests start run the server's bundle: built once here, not by
  // every process that finds it stale at once.
  await ensureServerBuilt();
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
  await withAdminClient((client) => client.query(`COMMENT ON DATABASE ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(new Date().toISOString())}`));
  return name;
}

async function hashDirectory(directory: string): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(directory, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash
      .update(relative(directory, file))
      .update("\0")
      .update(await readFile(file))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 12);
}

async function dropStaleDatabases(currentTemplate: string): Promise<void> {
  const staleBefore = Date.now() - STALE_AFTER_MS;
  let rows: { datname: string; comment: string | null; created_at: Date | null }[];
  try {
    rows = await withAdminClient(async (client) => {
      // PG_VERSION is written when a database is created: its mtime is the creation time
      // (readable by superusers, which the test role is; otherwise null and the comment decides).
      const result = await client.query<{ datname: string; comment: string | null; created_at: Date | null }>(
        `SELECT datname, shobj_description(oid, 'pg_database') AS comment,
                CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                     THEN (pg_stat_file('base/' || oid || '/PG_VERSION', true)).modification END AS created_at
           FROM pg_database
          WHERE starts_with(datname, $1) OR starts_with(datname, $2)`,
        [TEST_DATABASE_PREFIX, TEMPLATE_DATABASE_PREFIX],
      );
      return result.rows;
    });
  } catch {
    return; // cleanup is a courtesy: it must never fail a test run
  }
  for (const row of rows) {
    if (row.datname === currentTemplate) continue;
    const lastUsedAt = Math.max(
      (row.datname.startsWith(TEST_DATABASE_PREFIX) ? testDatabaseCreatedAt(row.datname)?.getTime() : undefined) ?? 0,
      row.comment === null ? 0 : new Date(row.comment).getTime() || 0,
      row.created_at?.getTime() ?? 0,
    );
    // Unknown age (0): leave it; it may be a template another run is migrating right now.
    if (lastUsedAt === 0 || lastUsedAt >= staleBefore) continue;
    // Another run may be dropping the same leftover: a failure here must not fail this run.
    await dropTestDatabase(row.datname).catch(() => undefined);
  }
}
