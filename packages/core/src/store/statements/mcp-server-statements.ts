import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

const listedTool = z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) });

export const mcpServerRow = z.object({
  id: z.string(),
  name: z.string(),
  transport: z.enum(["stdio", "http"]),
  command: z.string().nullable(),
  args: z.array(z.string()),
  url: z.string().nullable(),
  network: z.boolean(),
  secrets: z.string().nullable(),
  enabled: z.boolean(),
  created_at: z.date(),
  status: z.enum(["connecting", "connected", "failed"]),
  status_error: z.string().nullable(),
  tools: z.array(listedTool),
  status_at: z.date().nullable(),
});
export type McpServerRow = z.output<typeof mcpServerRow>;

const COLUMNS = "id, name, transport, command, args, url, network, secrets, enabled, created_at, status, status_error, tools, status_at";

export async function selectMcpServers(runner: SqlRunner, options: { enabledOnly?: boolean } = {}): Promise<McpServerRow[]> {
  const where = options.enabledOnly ? "WHERE enabled" : "";
  return queryParsed(runner, `SELECT ${COLUMNS} FROM mcp_servers ${where} ORDER BY name`, [], mcpServerRow);
}

export async function selectMcpServerByName(runner: SqlRunner, name: string): Promise<McpServerRow | undefined> {
  const [row] = await queryParsed(runner, `SELECT ${COLUMNS} FROM mcp_servers WHERE name = $1`, [name], mcpServerRow);
  return row;
}

/** Inserts the registration unless the name is taken; returns the row, or undefined when taken. */
export async function insertMcpServer(
  runner: SqlRunner,
  input: Pick<McpServerRow, "id" | "name" | "transport" | "command" | "args" | "url" | "network" | "secrets" | "enabled"> & { createdBy: string | null },
): Promise<McpServerRow | undefined> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO mcp_servers (id, name, transport, command, args, url, network, secrets, enabled, created_by)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [input.id, input.name, input.transport, input.command, JSON.stringify(input.args), input.url, input.network, input.secrets, input.enabled, input.createdBy],
    mcpServerRow,
  );
  return row;
}

export async function deleteMcpServer(runner: SqlRunner, name: string): Promise<number> {
  return queryRowCount(runner, "DELETE FROM mcp_servers WHERE name = $1", [name]);
}

/** A worker's report on one registration (by id: a server removed and registered again under its name is another row). */
export async function updateMcpServerStatus(
  runner: SqlRunner,
  input: { id: string; status: McpServerRow["status"]; error: string | null; tools: McpServerRow["tools"] },
): Promise<number> {
  return queryRowCount(runner, "UPDATE mcp_servers SET status = $2, status_error = $3, tools = $4::jsonb, status_at = now() WHERE id = $1", [
    input.id,
    input.status,
    input.error,
    JSON.stringify(input.tools),
  ]);
}
