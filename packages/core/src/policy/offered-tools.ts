import type { AgentSettings } from "../settings/agent-settings.ts";
import { TOOL_FAMILY_FLAGS } from "../settings/agent-settings.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";

/** Everything that decides which tools a run may use (docs/design.md, "Policy"). */
export interface ToolOfferContext {
  mode: "agent" | "guide";
  allowBash: boolean;
  allowWebSearch: boolean;
  useWeb: boolean;
  /** The only tools the run may be offered (the run's `tools`); empty or absent: no such limit. */
  tools?: readonly string[];
  hasWorkspace: boolean;
  role: "admin" | "user";
  settings: Pick<AgentSettings, keyof typeof TOOL_FAMILY_FLAGS>;
}

export type OfferDecision = { offered: true } | { offered: false; reason: string };

const FLAG_OF_FEATURE: ReadonlyMap<string, keyof typeof TOOL_FAMILY_FLAGS> = new Map(
  Object.entries(TOOL_FAMILY_FLAGS).map(([flag, feature]) => [feature, flag as keyof typeof TOOL_FAMILY_FLAGS]),
);

/**
 * Whether a tool is offered to a run, and if not, why (the reason is what the model reads when it
 * calls the tool anyway). The schema set sent to the model, GET /api/tools and the executor's
 * re-check all come from this one function (invariant 8).
 */
export function decideToolOffer(tool: ToolDefinition, context: ToolOfferContext): OfferDecision {
  if (context.mode === "guide") return { offered: false, reason: "this run is in guide mode: no tools are available, answer in text" };
  if (context.tools?.length && !context.tools.includes(tool.name)) {
    return { offered: false, reason: `this run was started with a list of tools that does not include ${tool.name}` };
  }
  const feature = tool.feature ?? tool.family;
  const flag = FLAG_OF_FEATURE.get(feature);
  if (flag && !context.settings[flag]) return { offered: false, reason: `the ${feature} tools are switched off by an administrator` };
  const effects = tool.effects ?? [];
  if (effects.includes("admin") && context.role !== "admin") return { offered: false, reason: "this tool needs the admin role" };
  if (tool.requiresWorkspace && !context.hasWorkspace) return { offered: false, reason: "this chat has no workspace selected" };
  // The whole process family (commands and background jobs, also the ones that only read) comes with allow_bash.
  if ((effects.includes("process") || tool.family === "process") && !context.allowBash) {
    return { offered: false, reason: "command execution is not enabled for this run (allow_bash)" };
  }
  if (tool.family === "web") {
    if (!context.allowWebSearch) return { offered: false, reason: "web access is disabled for this run (allow_web_search is false)" };
    if (!context.useWeb) return { offered: false, reason: "web tools are not enabled for this run (use_web)" };
  }
  return { offered: true };
}

export function offeredTools(tools: readonly ToolDefinition[], context: ToolOfferContext): ToolDefinition[] {
  return tools.filter((tool) => decideToolOffer(tool, context).offered);
}
