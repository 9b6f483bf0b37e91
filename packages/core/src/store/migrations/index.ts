// `@agentq/core/migrations`: applying the SQL migrations in prisma/migrations (npm run migrate, start).
export { type ApplyMigrationsResult, applyMigrations, type MigrationLogger } from "./apply-migrations.ts";
export { describeDatabaseUrl } from "./database-url.ts";
