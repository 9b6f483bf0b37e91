import type { ToolCatalog } from "../runs/run-loop-dependencies.ts";
import type { ToolDefinition } from "./tool-definition.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/**
 * The fixed tools of the registry followed by tools that come and go while the process runs (the
 * tools of connected MCP servers), read afresh at every `list` and `get`: a tool gone since a round
 * began is not found when the model calls it, and so refused by the executor. A dynamic tool never
 * shadows a fixed one of the same name.
 */
export function composeToolCatalog(registry: ToolRegistry, dynamicTools: () => readonly ToolDefinition[]): ToolCatalog {
  return {
    list: () => [...registry.list(), ...dynamicTools().filter((tool) => registry.get(tool.name) === undefined)],
    get: (name) => registry.get(name) ?? dynamicTools().find((tool) => tool.name === name),
    toModelSchema: (tool) => registry.toModelSchema(tool),
  };
}
