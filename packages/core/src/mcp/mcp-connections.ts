import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadSettings } from "../settings/agent-settings.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { type McpServerRow, selectMcpServers, updateMcpServerStatus } from "../store/statements/mcp-server-statements.ts";
import type { ToolDefinition, ToolResult } from "../tools/tool-definition.ts";
import type { ProcessSandbox } from "../tools/process/sandbox/process-sandbox.ts";
import { createMcpTool, isOfferableMcpTool } from "./create-mcp-tool.ts";
import { deriveMcpSecretsKey, openMcpSecrets } from "./mcp-secrets.ts";
import type { McpListedTool, McpServerStatus } from "./mcp-server-registration.ts";
import { loadMcpSdk, type McpSdk } from "./load-mcp-sdk.ts";

interface ConnectionLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

export interface McpConnectionsOptions {
  prisma: PrismaClient;
  /** The approval secret: the key of stored env/headers is derived from it. */
  deploymentSecret: string;
  /** The worker's process sandbox; null: stdio servers run unconfined (with their given environment only). */
  sandbox: ProcessSandbox | null;
  /** Host directories stdio servers must not see (WORKSPACES_ROOT). */
  hiddenPaths: readonly string[];
  logger: ConnectionLogger;
  /** How often the registrations are read again (added and removed servers). Default 2 s: one small query. */
  pollIntervalMs?: number;
  /** Longest wait between reconnection attempts (the first is after 0.5 s, then doubling). Default 30 s. */
  maxBackoffMs?: number;
  /** Connecting and listing tools must answer within this. Default 30 s. */
  connectTimeoutMs?: number;
  /** `start` waits this long at most for the first connections (a slow server must not hold the worker's start). Default 5 s. */
  startWaitMs?: number;
}

interface ServerConnection {
  row: McpServerRow;
  client: Client | null;
  status: McpServerStatus;
  error: string | null;
  listed: McpListedTool[];
  tools: ToolDefinition[];
  attempts: number;
  retry: NodeJS.Timeout | null;
  removed: boolean;
}

/** At most this many tools are listed from one server (pages followed until then). */
const MAX_TOOLS_PER_SERVER = 1000;

/**
 * A worker's connections to the registered MCP servers (Postgres is the truth: registrations are read
 * every few seconds). Each enabled server is connected, its tools listed (every page, and again on
 * `notifications/tools/list_changed`) and offered while it is connected; its status and tools are
 * written back for the API (GET /api/mcp/servers, GET /api/tools). A server that fails or disconnects
 * is reconnected with backoff; its tools are not offered meanwhile, so a call of one is refused.
 */
export class McpConnections {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly key: Buffer;
  private offered: ToolDefinition[] = [];
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: McpConnectionsOptions) {
    this.key = deriveMcpSecretsKey(options.deploymentSecret);
  }

  /** Reads the registrations and connects to each (waits a little for the first attempts), then keeps watching. */
  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.sync().then(({ connected }) => connected),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.startWaitMs ?? 5000);
      }),
    ]);
    clearTimeout(timer);
    const again = () => {
      this.poll = setTimeout(() => {
        // Connections made by a poll are not waited for: a slow server must not delay noticing removals.
        void this.sync().finally(() => {
          if (!this.closed) again();
        });
      }, this.options.pollIntervalMs ?? 2000);
      this.poll.unref();
    };
    again();
  }

  /** The MCP tools offered now (tools of connected servers). */
  tools(): readonly ToolDefinition[] {
    return this.offered;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearTimeout(this.poll);
    await Promise.all([...this.connections.values()].map((connection) => this.drop(connection)));
    this.connections.clear();
    this.offered = [];
  }

  /** Reads the registrations, drops the removed servers and starts connecting the new ones; `connected` settles when their first attempts have. */
  private async sync(): Promise<{ connected: Promise<unknown> }> {
    let rows: McpServerRow[];
    try {
      rows = await selectMcpServers(sqlPoolOf(this.options.prisma), { enabledOnly: true });
    } catch (error) {
      this.options.logger.warn({ err: error }, "could not read the MCP server registrations; keeping the current connections");
      return { connected: Promise.resolve() };
    }
    if (this.closed) return { connected: Promise.resolve() };
    const current = new Set(rows.map((row) => row.id));
    const gone = [...this.connections.values()].filter((connection) => !current.has(connection.row.id));
    for (const connection of gone) this.connections.delete(connection.row.id);
    if (gone.length > 0) this.rebuildOffered();
    const added = rows.filter((row) => !this.connections.has(row.id));
    for (const row of added) {
      this.connections.set(row.id, { row, client: null, status: "connecting", error: null, listed: [], tools: [], attempts: 0, retry: null, removed: false });
    }
    await Promise.all(gone.map((connection) => this.drop(connection)));
    return { connected: Promise.all(added.map((row) => this.connect(this.connections.get(row.id)!))) };
  }

  private async drop(connection: ServerConnection): Promise<void> {
    connection.removed = true;
    if (connection.retry) clearTimeout(connection.retry);
    const client = connection.client;
    connection.client = null;
    await client?.close().catch(() => undefined);
  }

  private async connect(connection: ServerConnection): Promise<void> {
    if (connection.removed || this.closed) return;
    connection.retry = null;
    this.setStatus(connection, "connecting", null);
    const { row } = connection;
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (error) {
      this.failed(connection, describeError(error));
      return;
    }
    if (connection.removed || this.closed) return;
    const { Client, ToolListChangedNotificationSchema, openMcpTransport } = sdk;
    const client = new Client({ name: "agentq", version: "1.0.0" }, { capabilities: {} });
    try {
      const secrets = row.secrets === null ? { env: {}, headers: {} } : openSecrets(this.key, row);
      const settings = row.transport === "http" ? await loadSettings(this.options.prisma) : null;
      const transport = openMcpTransport(row, secrets, {
        sandbox: this.options.sandbox,
        hiddenPaths: this.options.hiddenPaths,
        webFetchAllow: settings?.web_fetch_allow ?? [],
      });
      client.onclose = () => {
        if (connection.client !== client || connection.removed || this.closed) return;
        connection.client = null;
        this.failed(connection, "the server closed the connection (it exited or the network failed)");
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (connection.client === client) void this.listTools(connection, client).catch((error: unknown) => this.failed(connection, describeError(error)));
      });
      await client.connect(transport, { timeout: this.options.connectTimeoutMs ?? 30_000 });
      if (connection.removed || this.closed) {
        await client.close().catch(() => undefined);
        return;
      }
      connection.client = client;
      await this.listTools(connection, client);
      connection.attempts = 0;
      this.options.logger.info({ mcp_server: row.name, tools: connection.listed.length }, "MCP server connected");
    } catch (error) {
      if (connection.client === client) connection.client = null;
      await client.close().catch(() => undefined);
      this.failed(connection, describeError(error));
    }
  }

  /** Lists every page of the server's tools and offers them. */
  private async listTools(connection: ServerConnection, client: Client): Promise<void> {
    const listed: McpListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.options.connectTimeoutMs ?? 30_000 });
      for (const tool of page.tools) {
        listed.push({ name: tool.name, description: tool.description ?? "", input_schema: tool.inputSchema as Record<string, unknown> });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined && listed.length < MAX_TOOLS_PER_SERVER);
    if (connection.client !== client || connection.removed) return;
    const serverName = connection.row.name;
    const skipped = listed.filter((tool) => !isOfferableMcpTool(serverName, tool.name)).map((tool) => tool.name);
    if (skipped.length > 0)
      this.options.logger.warn(
        { mcp_server: serverName, tools: skipped },
        "MCP tools not offered: their full names would not fit providers' 64 characters of [a-zA-Z0-9_-]",
      );
    connection.listed = listed.filter((tool) => isOfferableMcpTool(serverName, tool.name));
    connection.tools = connection.listed.map((tool) => createMcpTool(serverName, tool, (name, args, options) => this.call(connection, name, args, options)));
    this.setStatus(connection, "connected", null);
  }

  private failed(connection: ServerConnection, error: string): void {
    if (connection.removed || this.closed) return;
    connection.listed = [];
    connection.tools = [];
    this.setStatus(connection, "failed", error);
    this.options.logger.warn({ mcp_server: connection.row.name, error, attempt: connection.attempts + 1 }, "MCP server unavailable; reconnecting with backoff");
    const delay = Math.min(this.options.maxBackoffMs ?? 30_000, 500 * 2 ** connection.attempts);
    connection.attempts += 1;
    if (connection.retry) clearTimeout(connection.retry);
    connection.retry = setTimeout(() => void this.connect(connection), delay);
    connection.retry.unref();
  }

  private async call(
    connection: ServerConnection,
    toolName: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<ToolResult> {
    const client = connection.client;
    const serverName = connection.row.name;
    if (!client || connection.status !== "connected") {
      return { ok: false, error: `the MCP server "${serverName}" is not connected (${connection.error ?? connection.status}); try again later` };
    }
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, { timeout: options.timeoutMs, signal: options.signal });
      const text = resultText(result);
      if (result.isError === true) return { ok: false, error: text || `the MCP tool "${toolName}" reported an error` };
      return { ok: true, output: text };
    } catch (error) {
      // A connected client means the SDK is loaded.
      const { McpError, ErrorCode } = await loadMcpSdk();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return { ok: false, error: `the MCP tool "${toolName}" of server "${serverName}" did not answer within ${Math.round(options.timeoutMs / 1000)} s` };
      }
      return { ok: false, error: `the MCP tool "${toolName}" of server "${serverName}" failed: ${describeError(error)}` };
    }
  }

  private setStatus(connection: ServerConnection, status: McpServerStatus, error: string | null): void {
    connection.status = status;
    connection.error = error;
    this.rebuildOffered();
    updateMcpServerStatus(sqlPoolOf(this.options.prisma), {
      id: connection.row.id,
      status,
      error,
      tools: status === "connected" ? connection.listed : [],
    }).catch((writeError: unknown) =>
      this.options.logger.warn({ err: writeError, mcp_server: connection.row.name }, "could not record an MCP server's status"),
    );
  }

  private rebuildOffered(): void {
    this.offered = [...this.connections.values()].filter((connection) => connection.status === "connected").flatMap((connection) => connection.tools);
  }
}

function openSecrets(key: Buffer, row: McpServerRow) {
  try {
    return openMcpSecrets(key, row.name, row.secrets ?? "");
  } catch {
    throw new Error("its stored env/headers cannot be decrypted (the approval secret changed?): remove and register the server again");
  }
}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 500);
}

/** The text the model reads: text parts as they are, other parts named. */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const parts = content.map((part) => {
    switch (part.type) {
      case "text":
        return String(part.text ?? "");
      case "resource": {
        const resource = (part.resource ?? {}) as Record<string, unknown>;
        return typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri ?? "")}]`;
      }
      case "resource_link":
        return `[resource ${String(part.uri ?? "")}]`;
      default:
        return `[${String(part.type)} content${typeof part.mimeType === "string" ? ` (${part.mimeType})` : ""}]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}
