import { z } from "zod";
import type { ToolDefinition, ToolResult } from "../tools/tool-definition.ts";
import { TOOL_NAME_PATTERN } from "../tools/tool-registry.ts";
import type { McpListedTool } from "./mcp-server-registration.ts";

/** What every MCP server's tool's name starts with. */
export const MCP_TOOL_PREFIX = "mcp__";

/** `mcp__<server>__<tool>`; providers accept at most 64 characters of `[a-zA-Z0-9_-]` (TOOL_NAME_PATTERN). */
export function mcpToolName(serverName: string, toolName: string): string {
  return `${MCP_TOOL_PREFIX}${serverName}__${toolName}`;
}

/** A server's tool whose full name no provider would accept is not offered (the server's status says so). */
export function isOfferableMcpTool(serverName: string, toolName: string): boolean {
  return TOOL_NAME_PATTERN.test(mcpToolName(serverName, toolName));
}

/** Calls one tool of a connected server; failures are results, never exceptions. */
export type McpToolCaller = (toolName: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }) => Promise<ToolResult>;

/** The default of `mcp_call_timeout_seconds`. */
const DEFAULT_CALL_TIMEOUT_SECONDS = 60;

/**
 * A tool of an MCP server as agentq offers it: family and effect `mcp`, its results taint the run,
 * the server's JSON Schema sent to the model as it is and converted to zod to validate each call (a
 * schema violation is a tool error, the server is not called). A schema zod cannot convert still
 * admits any object (the server validates it).
 */
export function createMcpTool(serverName: string, listed: McpListedTool, call: McpToolCaller): ToolDefinition<Record<string, unknown>> {
  const jsonSchema = { ...listed.input_schema, type: "object" };
  let parameters: z.ZodType<Record<string, unknown>>;
  try {
    parameters = z.fromJSONSchema(jsonSchema as z.core.JSONSchema.JSONSchema) as z.ZodType<Record<string, unknown>>;
  } catch {
    parameters = z.record(z.string(), z.unknown());
  }
  return {
    name: mcpToolName(serverName, listed.name),
    family: "mcp",
    description: listed.description || `The tool "${listed.name}" of the MCP server "${serverName}".`,
    parameters,
    jsonSchema,
    effects: ["mcp"],
    taints: true,
    requiresWorkspace: false,
    execute: (args, context) =>
      call(listed.name, args, { signal: context.signal, timeoutMs: (context.settings.mcpCallTimeoutSeconds ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000 }),
    describeCall: () => `${listed.name} of MCP server ${serverName}`,
  };
}

/**
 * The MCP tools as the API lists them (GET /api/tools): the tools of the servers a worker reported
 * connected. The API never calls them; a call reaching one here is a bug, answered as a tool error.
 */
export function createListedMcpTools(
  servers: readonly { name: string; enabled: boolean; status: string; tools: readonly McpListedTool[] }[],
): ToolDefinition[] {
  const notHere: McpToolCaller = async () => ({ ok: false, error: "MCP tools are called by workers only" });
  return servers
    .filter((server) => server.enabled && server.status === "connected")
    .flatMap((server) => server.tools.filter((tool) => isOfferableMcpTool(server.name, tool.name)).map((tool) => createMcpTool(server.name, tool, notHere)));
}
