import { z } from "zod";
import { ToolCallStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

const OPEN_CALLS_SQL = preparedSql(
  "run_open_calls",
  `SELECT id, call_id AS "callId", tool, status::text AS status FROM tool_calls WHERE run_id = $1 AND status <> 'completed' ORDER BY round, position`,
);

const openCallRow = z.object({ id: z.string(), callId: z.string(), tool: z.string(), status: z.enum(ToolCallStatus) });

/** The run's tool calls without a result (not `completed`), in call order (runs/answer-open-tool-calls.ts). */
export async function selectOpenToolCalls(runner: SqlRunner, runId: string): Promise<z.output<typeof openCallRow>[]> {
  return queryParsed(runner, OPEN_CALLS_SQL, [runId], openCallRow);
}
