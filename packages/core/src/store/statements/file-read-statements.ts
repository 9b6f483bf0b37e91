import { z } from "zod";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

// The run's file reads (store/file-read-ledger.ts): inside every read and write tool call, so prepared.
// They are written by the step commit (store/run-statement.ts), with the call's result.

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
