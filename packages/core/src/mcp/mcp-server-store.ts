import { AgentqError, NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { deleteMcpServer, insertMcpServer, type McpServerRow, selectMcpServerByName, selectMcpServers } from "../store/statements/mcp-server-statements.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { recordAuditEntry } from "../audit/record-audit-entry.ts";
import { createListedMcpTools } from "./create-mcp-tool.ts";
import { deriveMcpSecretsKey, sealMcpSecrets } from "./mcp-secrets.ts";
import type { McpListedTool, McpServerRegistration, McpServerView } from "./mcp-server-registration.ts";

/**
 * The registry of MCP servers (Postgres is the truth; workers read it, connect, and write back each
 * server's status and tools). Plain functions with their dependencies as arguments, used by the REST
 * routes and the admin tools alike.
 */

export interface AddMcpServerDependencies {
  prisma: PrismaClient;
  /** The deployment secret the key of stored env/headers is derived from (the approval secret). */
  deploymentSecret: string;
  generateId: GenerateId;
}

export class McpServerExistsError extends AgentqError {
  constructor(name: string) {
    super("mcp_server_exists", `an MCP server named "${name}" is registered already; remove it first to register it again`, { name });
  }
}

export function toMcpServerView(row: McpServerRow): McpServerView {
  return {
    name: row.name,
    transport: row.transport,
    command: row.command,
    args: row.args,
    url: row.url,
    network: row.network,
    enabled: row.enabled,
    status: row.status,
    error: row.status_error,
    tools_count: row.status === "connected" ? row.tools.length : 0,
    created_at: row.created_at.toISOString(),
    status_at: row.status_at?.toISOString() ?? null,
  };
}

export async function listMcpServers(prisma: PrismaClient): Promise<McpServerView[]> {
  return (await selectMcpServers(sqlPoolOf(prisma))).map(toMcpServerView);
}

/** Registers a server (already validated by `mcpServerRegistrationSchema`); its env or headers are sealed before they are stored. */
export async function addMcpServer(
  dependencies: AddMcpServerDependencies,
  registration: McpServerRegistration,
  createdBy: string | null,
): Promise<McpServerView> {
  const key = deriveMcpSecretsKey(dependencies.deploymentSecret);
  const secrets = registration.transport === "stdio" ? { env: registration.env, headers: {} } : { env: {}, headers: registration.headers };
  const hasSecrets = Object.keys(secrets.env).length + Object.keys(secrets.headers).length > 0;
  const row = await inSqlTransaction(sqlPoolOf(dependencies.prisma), async (client) => {
    const inserted = await insertMcpServer(client, {
      id: dependencies.generateId("mcp"),
      name: registration.name,
      transport: registration.transport,
      command: registration.transport === "stdio" ? registration.command : null,
      args: registration.transport === "stdio" ? registration.args : [],
      url: registration.transport === "http" ? registration.url : null,
      network: registration.transport === "stdio" ? registration.network : false,
      secrets: hasSecrets ? sealMcpSecrets(key, registration.name, secrets) : null,
      enabled: registration.enabled,
      createdBy,
    });
    if (!inserted) throw new McpServerExistsError(registration.name);
    // Named, never shown: which env variables and headers were given, not their values.
    await recordAuditEntry(
      client,
      {
        actorId: createdBy,
        action: "mcp_server.added",
        target: `mcp_server:${registration.name}`,
        details: {
          transport: registration.transport,
          ...(registration.transport === "stdio"
            ? { command: registration.command, args: registration.args, network: registration.network, env_names: Object.keys(registration.env) }
            : { url: registration.url, header_names: Object.keys(registration.headers) }),
          enabled: registration.enabled,
        },
      },
      { generateId: dependencies.generateId },
    );
    return inserted;
  });
  return toMcpServerView(row);
}

/** Removes a server; workers drop its connection and tools at their next look (a few seconds). */
export async function removeMcpServer(prisma: PrismaClient, name: string, removedBy: string | null): Promise<void> {
  await inSqlTransaction(sqlPoolOf(prisma), async (client) => {
    if ((await deleteMcpServer(client, name)) === 0) throw new NotFoundError("MCP server", { name });
    await recordAuditEntry(client, { actorId: removedBy, action: "mcp_server.removed", target: `mcp_server:${name}` });
  });
}

/** The tools a server listed when a worker last connected to it (none unless it is connected). */
export async function getMcpServerTools(prisma: PrismaClient, name: string): Promise<McpListedTool[]> {
  const row = await selectMcpServerByName(sqlPoolOf(prisma), name);
  if (!row) throw new NotFoundError("MCP server", { name });
  return row.status === "connected" ? row.tools : [];
}

/** The status of one server (what `service_status`-like views show). */
export async function getMcpServer(prisma: PrismaClient, name: string): Promise<McpServerView> {
  const row = await selectMcpServerByName(sqlPoolOf(prisma), name);
  if (!row) throw new NotFoundError("MCP server", { name });
  return toMcpServerView(row);
}

/**
 * The MCP tools a run would be offered now, as the workers reported them (each connected server's
 * listed tools): what GET /api/tools adds to the fixed tools. Workers offer their live connections'
 * tools; both agree as long as the workers agree on each server's status.
 */
export async function listReportedMcpTools(prisma: PrismaClient): Promise<ToolDefinition[]> {
  return createListedMcpTools(await selectMcpServers(sqlPoolOf(prisma), { enabledOnly: true }));
}
