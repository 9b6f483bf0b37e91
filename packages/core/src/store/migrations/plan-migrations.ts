import { MigrationChecksumMismatchError, MigrationFailedPreviouslyError, MigrationMissingFromDirectoryError } from "./migration-errors.ts";
import { scriptMatchesChecksum } from "./migration-checksum.ts";
import type { MigrationFile } from "./read-migrations.ts";

/** A row of `_prisma_migrations`, as the planner needs it. */
export interface MigrationRecord {
  migrationName: string;
  checksum: string;
  startedAt: Date;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  logs: string | null;
}

export interface MigrationPlan {
  /** Names of the migrations already applied, in directory order. */
  alreadyApplied: string[];
  /** Migrations to apply now, in order. */
  pending: MigrationFile[];
}

/**
 * Compares the directory with the database's history, with Prisma's reading of `_prisma_migrations`:
 * a row with `rolled_back_at` set no longer counts (that is what `prisma migrate resolve --rolled-back`
 * writes); a row with neither `finished_at` nor `rolled_back_at` is a failed migration, which blocks
 * everything until someone resolves it. Unlike `prisma migrate deploy`, an edited migration is refused:
 * the database would silently differ from what the files describe.
 */
export function planMigrations(files: readonly MigrationFile[], records: readonly MigrationRecord[], migrationsDirectory: string): MigrationPlan {
  const live = records.filter((record) => record.rolledBackAt === null);

  const failed = live.find((record) => record.finishedAt === null);
  if (failed !== undefined) {
    throw new MigrationFailedPreviouslyError(failed.migrationName, { startedAt: failed.startedAt, logs: failed.logs });
  }

  const fileNames = new Set(files.map((file) => file.name));
  const missing = live.find((record) => !fileNames.has(record.migrationName));
  if (missing !== undefined) {
    throw new MigrationMissingFromDirectoryError(missing.migrationName, { migrationsDirectory });
  }

  const alreadyApplied: string[] = [];
  const pending: MigrationFile[] = [];
  for (const file of files) {
    const record = live.find((candidate) => candidate.migrationName === file.name);
    if (record === undefined) {
      pending.push(file);
      continue;
    }
    if (record.checksum !== file.checksum && !scriptMatchesChecksum(file.sql, record.checksum)) {
      throw new MigrationChecksumMismatchError(file.name, { recordedChecksum: record.checksum, fileChecksum: file.checksum });
    }
    alreadyApplied.push(file.name);
  }
  return { alreadyApplied, pending };
}
