import type { Effect, ToolDefinition } from "../tools/tool-definition.ts";

/** Effects that, once the run is tainted, need a human's approval (or a grant). Unclassified counts too. */
const GATED_EFFECTS: ReadonlySet<Effect> = new Set(["process", "write", "network", "admin", "mcp"]);

export function needsApprovalWhenTainted(tool: Pick<ToolDefinition, "effects">): boolean {
  if (tool.effects === undefined || tool.effects.length === 0) return true;
  return tool.effects.some((effect) => GATED_EFFECTS.has(effect));
}

/** Effects as recorded on calls, approvals and grants: sorted; `unclassified` stands for none declared. */
export function effectLabels(tool: Pick<ToolDefinition, "effects">): string[] {
  if (tool.effects === undefined || tool.effects.length === 0) return ["unclassified"];
  return [...new Set(tool.effects)].sort();
}
