// Per-test-file Postgres databases, cloned from the migrated template that global-setup.ts prepares
// once per run. Cloning takes milliseconds; migrating each database would take far longer.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { withDatabase } from "../../packages/core/src/store/migrations/database-url.ts";
import { sqlState } from "../../packages/core/src/store/migrations/sql-state.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Name of the migrated template database (set by test/support/global-setup.ts). */
    agentqTemplateDatabase: string;
  }
}

/**
 * Server and credentials for test databases, pointing at the maintenance database `postgres`.
 * Default: the local server of docs/design.md ("Environment this is built and tested on"). Override with AGENTQ_TEST_DATABASE_URL.
 */
export const ADMIN_DATABASE_URL = process.env.AGENTQ_TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** Every database the harness creates starts with this, so leftovers can be found and dropped. */
export const TEST_DATABASE_PREFIX = "agentq_test_";
export const TEMPLATE_DATABASE_PREFIX = "agentq_template_";

/** Env var through which the template name reaches processes that cannot call vitest's `inject`. */
export const TEMPLATE_DATABASE_ENV = "AGENTQ_TEST_TEMPLATE_DATABASE";

export interface TestDatabase {
  /** Connection URL of the new database (same server and role as ADMIN_DATABASE_URL). */
  url: string;
  name: string;
  /** Drops the database, closing any connection still open to it. Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * A fresh name `agentq_test_<creation time, base 36 ms>_<random>`: the time lets global setup drop
 * databases that crashed runs left behind, the randomness keeps parallel files apart.
 */
export function newTestDatabaseName(): string {
  return `${TEST_DATABASE_PREFIX}${Date.now().toString(36)}_${randomBytes(5).toString("hex")}`;
}

/** When the database was created, read back from its name; undefined for names not made by newTestDatabaseName. */
export function testDatabaseCreatedAt(name: string): Date | undefined {
  const match = new RegExp(`^${TEST_DATABASE_PREFIX}([0-9a-z]+)_[0-9a-f]+$`).exec(name);
  if (match?.[1] === undefined) return undefined;
  const milliseconds = Number.parseInt(match[1], 36);
  return Number.isFinite(milliseconds) ? new Date(milliseconds) : undefined;
}

export function testDatabaseUrl(name: string): string {
  return withDatabase(ADMIN_DATABASE_URL, name);
}

/** Runs `work` on a short-lived connection to the maintenance database. */
export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** DROP DATABASE ... WITH (FORCE): a client a test forgot to close must not keep the database alive. */
export async function dropTestDatabase(name: string): Promise<void> {
  await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
}

const OBJECT_IN_USE = "55006"; // "source database ... is being accessed by other users"
/** How long to keep retrying a clone while another session is connected to the template. */
const CLONE_DEADLINE_MS = 30_000;

/** A new database with the full migrated schema and no rows. Call `drop()` in afterAll. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = await templateDatabaseName();
  const name = newTestDatabaseName();
  await withAdminClient(async (client) => {
    const deadline = Date.now() + CLONE_DEADLINE_MS;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`);
        return;
      } catch (error) {
        // Postgres refuses to copy a database someone is connected to; that someone is a migrator
        // checking the template (global setup of a concurrent run) and leaves within moments.
        if (sqlState(error) !== OBJECT_IN_USE || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
      }
    }
  });
  return { name, url: testDatabaseUrl(name), drop: () => dropTestDatabase(name) };
}

async function templateDatabaseName(): Promise<string> {
  // Imported lazily: global-setup.ts imports this module too, and there `vitest` is not a test runtime.
  const provided = await import("vitest")
    .then(
      ({ inject }) => inject("agentqTemplateDatabase"),
      () => undefined,
    )
    .catch(() => undefined);
  if (provided !== undefined && provided !== "") return provided;
  // A process a test spawned (no vitest runtime) inherits the name through the environment.
  const fromEnvironment = process.env[TEMPLATE_DATABASE_ENV];
  if (fromEnvironment !== undefined && fromEnvironment !== "") return fromEnvironment;
  throw new Error(
    "no template database: run the tests through vitest with test/support/global-setup.ts as globalSetup " +
      `(vitest.config.ts), or set ${TEMPLATE_DATABASE_ENV}`,
  );
}
