import type { FileReadLedger } from "../tools/tool-definition.ts";
import { sqlPoolOf, type PrismaClient } from "./create-prisma-client.ts";
import { selectLastFileRead, upsertFileRead } from "./statements/file-read-statements.ts";

/**
 * The run's file reads, kept in Postgres so the revision rule survives a crash or a resume. Plain
 * SQL: these run inside every read and write tool call, on the hot path of a run.
 */
export function createFileReadLedger(prisma: PrismaClient, runId: string): FileReadLedger {
  const pool = sqlPoolOf(prisma);
  return {
    async lastReadRevision(workspaceId, path) {
      return (await selectLastFileRead(pool, { runId, workspaceId, path }))?.revision;
    },
    async recordRead(workspaceId, path, revision) {
      await upsertFileRead(pool, { runId, workspaceId, path, revision });
    },
  };
}
