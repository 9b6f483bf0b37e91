import { z } from "zod";
import { preparedSql, queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

// The run's file reads (store/file-read-ledger.ts): inside every read and write tool call, so prepared.

const LAST_READ_SQL = preparedSql("file_read_last", "SELECT revision FROM run_file_reads WHERE run_id = $1 AND workspace_id = $2 AND path = $3");

const lastReadRow = z.object({ revision: z.string() });

/** The revision of the file the run read last; no row: the run has not read it. */
export async function selectLastFileRead(
  runner: SqlRunner,
  input: { runId: string; workspaceId: string; path: string },
): Promise<z.output<typeof lastReadRow> | undefined> {
  const [row] = await queryParsed(runner, LAST_READ_SQL, [input.runId, input.workspaceId, input.path], lastReadRow);
  return row;
}

const RECORD_READ_SQL = preparedSql(
  "file_read_record",
  `INSERT INTO run_file_reads (run_id, workspace_id, path, revision, read_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (run_id, workspace_id, path) DO UPDATE SET revision = EXCLUDED.revision, read_at = EXCLUDED.read_at`,
);

/** Records (or replaces) the revision of the file the run read. */
export async function upsertFileRead(runner: SqlRunner, input: { runId: string; workspaceId: string; path: string; revision: string }): Promise<void> {
  await queryRowCount(runner, RECORD_READ_SQL, [input.runId, input.workspaceId, input.path, input.revision]);
}
