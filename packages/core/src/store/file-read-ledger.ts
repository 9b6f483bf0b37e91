import type { FileReadLedger } from "../tools/tool-definition.ts";
import { sqlPoolOf, type PrismaClient } from "./create-prisma-client.ts";
import { preparedSql, queryRows } from "./sql-pool.ts";

const LAST_READ_SQL = preparedSql("file_read_last", "SELECT revision FROM run_file_reads WHERE run_id = $1 AND workspace_id = $2 AND path = $3");

const RECORD_READ_SQL = preparedSql(
  "file_read_record",
  `INSERT INTO run_file_reads (run_id, workspace_id, path, revision, read_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (run_id, workspace_id, path) DO UPDATE SET revision = EXCLUDED.revision, read_at = EXCLUDED.read_at`,
);

/**
 * The run's file reads, kept in Postgres so the revision rule survives a crash or a resume. Plain
 * SQL: these run inside every read and write tool call, on the hot path of a run.
 */
export function createFileReadLedger(prisma: PrismaClient, runId: string): FileReadLedger {
  const pool = sqlPoolOf(prisma);
  return {
    async lastReadRevision(workspaceId, path) {
      const [row] = await queryRows<{ revision: string }>(pool, LAST_READ_SQL, [runId, workspaceId, path]);
      return row?.revision;
    },
    async recordRead(workspaceId, path, revision) {
      await queryRows(pool, RECORD_READ_SQL, [runId, workspaceId, path, revision]);
    },
  };
}
