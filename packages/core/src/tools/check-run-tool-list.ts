import { InvalidRequestError } from "../errors/agentq-error.ts";
import { MCP_TOOL_PREFIX } from "../mcp/create-mcp-tool.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/**
 * The tools a new run is limited to (POST /api/chats/:id/runs `tools`), each named once. A name
 * must be one of the fixed tools or an MCP server's (`mcp__…`: its server may connect later, so
 * it is not looked up): a misspelt name would otherwise leave the run silently without that tool.
 */
export function checkRunToolList(registry: ToolRegistry, names: readonly string[]): string[] {
  const unknown = names.filter((name) => registry.get(name) === undefined && !name.startsWith(MCP_TOOL_PREFIX));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`tools: no tool is named ${unknown.join(", ")} (GET /api/tools lists them)`, { field: "tools", unknown });
  }
  return [...new Set(names)];
}
