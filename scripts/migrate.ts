// `npm run migrate`: creates the database if needed and applies prisma/migrations, recording them in
// `_prisma_migrations` as Prisma does (the Prisma CLI cannot run migrations offline: docs/design.md,
// "Environment facts"). `npm start` runs this file before starting the services.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { AgentqError, commonEnvironmentShape, createLogger, type Logger, parseEnvironment } from "@agentq/core";
import { applyMigrations, type ApplyMigrationsResult, describeDatabaseUrl, type MigrationLogger } from "@agentq/core/migrations";

/** The repository's migrations, found relative to this file so the working directory does not matter. */
export const MIGRATIONS_DIRECTORY = fileURLToPath(new URL("../prisma/migrations", import.meta.url));

export const migrateEnvironmentSchema = z.object({
  DATABASE_URL: commonEnvironmentShape.DATABASE_URL,
  LOG_LEVEL: commonEnvironmentShape.LOG_LEVEL,
});

export interface RunMigrationsOptions {
  /** Where progress lines go. Default: silent (the CLI below passes a pino logger). */
  logger?: MigrationLogger;
  /** Default MIGRATIONS_DIRECTORY (the repository's prisma/migrations). */
  migrationsDirectory?: string;
}

/** Parses DATABASE_URL from `environment` and applies the pending migrations. */
export async function runMigrations(
  environment: Record<string, string | undefined> = process.env,
  options: RunMigrationsOptions = {},
): Promise<ApplyMigrationsResult> {
  const { DATABASE_URL } = parseEnvironment(migrateEnvironmentSchema, environment);
  return applyMigrations({
    databaseUrl: DATABASE_URL,
    migrationsDirectory: options.migrationsDirectory ?? MIGRATIONS_DIRECTORY,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
}

async function main(): Promise<void> {
  let logger: Logger = createLogger({ name: "migrate" });
  let target = "";
  try {
    const environment = parseEnvironment(migrateEnvironmentSchema, process.env);
    const password = new URL(environment.DATABASE_URL).password;
    logger = createLogger({ name: "migrate", level: environment.LOG_LEVEL, secrets: [decodeURIComponent(password)] });
    const { host, port, database, user } = describeDatabaseUrl(environment.DATABASE_URL);
    target = ` database "${database}" at ${host}:${port}`;
    logger.info({ host, port, database, user }, "migrating");
    await runMigrations(process.env, { logger });
  } catch (error) {
    if (error instanceof AgentqError) {
      logger.error({ code: error.code, details: error.details }, error.message);
    } else {
      // Connection failures and the like: say where we tried, the driver's message says why.
      const code = (error as { code?: unknown }).code ?? "migration_error";
      logger.error({ code }, `cannot migrate${target}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // exitCode rather than exit(): pino writes asynchronously and must flush the line above.
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
