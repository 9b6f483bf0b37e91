import type { FileReadLedger } from "../tools/tool-definition.ts";
import type { PrismaClient } from "./create-prisma-client.ts";

/**
 * The run's file reads, kept in Postgres so the revision rule survives a crash or a resume. Plain
 * SQL: these run inside every read and write tool call, on the hot path of a run.
 */
export function createFileReadLedger(prisma: PrismaClient, runId: string): FileReadLedger {
  return {
    async lastReadRevision(workspaceId, path) {
      const rows = await prisma.$queryRaw<{ revision: string }[]>`
        SELECT revision FROM run_file_reads WHERE run_id = ${runId} AND workspace_id = ${workspaceId} AND path = ${path}`;
      return rows[0]?.revision;
    },
    async recordRead(workspaceId, path, revision) {
      await prisma.$executeRaw`
        INSERT INTO run_file_reads (run_id, workspace_id, path, revision, read_at) VALUES (${runId}, ${workspaceId}, ${path}, ${revision}, now())
        ON CONFLICT (run_id, workspace_id, path) DO UPDATE SET revision = EXCLUDED.revision, read_at = EXCLUDED.read_at`;
    },
  };
}
