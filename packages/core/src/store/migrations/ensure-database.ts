import pg from "pg";
import { describeDatabaseUrl, withDatabase } from "./database-url.ts";
import { DatabaseCreateForbiddenError } from "./migration-errors.ts";
import { sqlState } from "./sql-state.ts";

export interface EnsureDatabaseOptions {
  databaseUrl: string;
  /**
   * Databases to connect to for CREATE DATABASE, tried in order. Default `["postgres", "template1"]`:
   * `postgres` exists on every stock server; `template1` is the fallback where it was dropped.
   */
  maintenanceDatabases?: readonly string[];
}

/** SQLSTATEs this module reacts to. */
const INVALID_CATALOG_NAME = "3D000"; // the database does not exist
const DUPLICATE_DATABASE = "42P04";
const UNIQUE_VIOLATION = "23505"; // two concurrent CREATE DATABASE of one name can also end this way
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Creates the database named in `databaseUrl` unless it exists. Safe to run from several processes
 * at once: whoever loses the race sees "already exists" and carries on. Returns whether this call
 * created it.
 */
export async function ensureDatabase(options: EnsureDatabaseOptions): Promise<{ created: boolean }> {
  if (await databaseExists(options.databaseUrl)) return { created: false };

  const target = describeDatabaseUrl(options.databaseUrl);
  const client = await connectToMaintenanceDatabase(options.databaseUrl, options.maintenanceDatabases ?? ["postgres", "template1"]);
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(target.database)}`);
    return { created: true };
  } catch (error) {
    const code = sqlState(error);
    if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return { created: false };
    if (code === INSUFFICIENT_PRIVILEGE) throw new DatabaseCreateForbiddenError(target, error);
    throw error;
  } finally {
    await client.end();
  }
}

async function databaseExists(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if (sqlState(error) === INVALID_CATALOG_NAME) return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function connectToMaintenanceDatabase(databaseUrl: string, candidates: readonly string[]): Promise<pg.Client> {
  let lastError: unknown = new Error("no maintenance database to connect to");
  for (const database of candidates) {
    const client = new pg.Client({ connectionString: withDatabase(databaseUrl, database) });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      lastError = error;
      if (sqlState(error) !== INVALID_CATALOG_NAME) break;
    }
  }
  throw lastError;
}
