import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { migrationChecksum } from "./migration-checksum.ts";
import { MigrationsDirectoryError } from "./migration-errors.ts";

/** One `<name>/migration.sql` of a Prisma migrations directory. */
export interface MigrationFile {
  /** The directory name, e.g. `20261202000000_init`; migrations apply in the order of these names. */
  name: string;
  /** The SQL, decoded as UTF-8. */
  sql: string;
  /** sha256 hex of the file's bytes: what Prisma stores in `_prisma_migrations.checksum`. */
  checksum: string;
}

const LOCK_FILE = "migration_lock.toml";

/**
 * Reads the migrations of a Prisma migrations directory, sorted by name as Prisma sorts them.
 * Files at the top level (migration_lock.toml, a README) are not migrations; a subdirectory without
 * migration.sql is an error, as it is for Prisma.
 */
export async function readMigrations(migrationsDirectory: string): Promise<MigrationFile[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(migrationsDirectory, { withFileTypes: true });
  } catch (error) {
    throw new MigrationsDirectoryError(`cannot read the migrations directory ${migrationsDirectory}: ${(error as Error).message}`, { migrationsDirectory });
  }
  await checkLockFileProvider(
    migrationsDirectory,
    entries.some((entry) => entry.isFile() && entry.name === LOCK_FILE),
  );

  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const path = join(migrationsDirectory, name, "migration.sql");
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      throw new MigrationsDirectoryError(`migration ${name} has no migration.sql (${path}): add the file or remove the directory`, {
        migration: name,
        migrationsDirectory,
      });
    }
    migrations.push({ name, sql: bytes.toString("utf8"), checksum: migrationChecksum(bytes) });
  }
  return migrations;
}

/** Prisma refuses migrations written for another provider; so do we, with the same lock file. */
async function checkLockFileProvider(migrationsDirectory: string, hasLockFile: boolean): Promise<void> {
  if (!hasLockFile) return;
  const text = await readFile(join(migrationsDirectory, LOCK_FILE), "utf8");
  const provider = /^\s*provider\s*=\s*"([^"]*)"/m.exec(text)?.[1];
  if (provider !== undefined && provider !== "postgresql") {
    throw new MigrationsDirectoryError(
      `${LOCK_FILE} says these migrations are for "${provider}", not "postgresql": point the migrate command at the PostgreSQL migrations`,
      { migrationsDirectory, provider },
    );
  }
}
