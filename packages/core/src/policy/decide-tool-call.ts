import type { ToolDefinition } from "../tools/tool-definition.ts";
import { effectLabels, needsApprovalWhenTainted } from "./effects.ts";
import { decideToolOffer, type ToolOfferContext } from "./offered-tools.ts";

/** A standing permission: calls of `tool` with exactly these effects proceed without asking. */
export interface GrantRef {
  tool: string;
  effects: readonly string[];
}

/** Why a call pauses: untrusted material had entered the run, or the admin's `approval_always` names the tool. */
export type PauseReason = "tainted" | "approval_always";

export type ToolCallDecision = { kind: "execute" } | { kind: "refuse"; reason: string } | { kind: "needs_approval"; effects: string[]; reason: PauseReason };

export interface DecideToolCallInput {
  /** Undefined when the model named a tool that does not exist. */
  tool: ToolDefinition | undefined;
  toolName: string;
  offer: ToolOfferContext;
  /** Untrusted material had entered the run when the model emitted this call. */
  tainted: boolean;
  grants: readonly GrantRef[];
  /**
   * The tools sent to the model in the round that emitted the call; a call of any other tool is
   * refused (an empty list in a final answer round). Null: not recorded, only the offer is checked.
   */
  sentTools?: readonly string[] | null;
  /** The setting `approval_always`: tools (or `prefix*` patterns) whose every call pauses, tainted or not, unless a grant covers it. */
  approvalAlways?: readonly string[];
}

/** An `approval_always` entry: a tool's name, or a prefix ending in `*` (`mcp__github__*`). */
export function matchesToolPattern(pattern: string, toolName: string): boolean {
  return pattern.endsWith("*") ? toolName.startsWith(pattern.slice(0, -1)) : pattern === toolName;
}

export function grantCovers(grant: GrantRef, toolName: string, effects: readonly string[]): boolean {
  return grant.tool === toolName && grant.effects.length === effects.length && effects.every((effect) => grant.effects.includes(effect));
}

/**
 * The executor's check of one emitted call (invariant 8): the call must be for a tool the run is
 * offered, and once the run is tainted a side-effecting call needs approval unless a grant covers it.
 */
export function decideToolCall(input: DecideToolCallInput): ToolCallDecision {
  if (!input.tool) return { kind: "refuse", reason: `there is no tool named "${input.toolName}"` };
  const offer = decideToolOffer(input.tool, input.offer);
  if (!offer.offered) return { kind: "refuse", reason: `the tool "${input.toolName}" is not available: ${offer.reason}` };
  if (input.sentTools && !input.sentTools.includes(input.toolName)) {
    return {
      kind: "refuse",
      reason:
        input.sentTools.length === 0
          ? `not executed: no tools were offered in this round; answer with text`
          : `not executed: the tool "${input.toolName}" was not offered in this round`,
    };
  }
  const effects = effectLabels(input.tool);
  const always = input.approvalAlways?.some((entry) => matchesToolPattern(entry, input.toolName)) ?? false;
  if (!always && (!input.tainted || !needsApprovalWhenTainted(input.tool))) return { kind: "execute" };
  // A person's "allow for this run/chat" is an answer to the question, whoever made it be asked.
  if (input.grants.some((grant) => grantCovers(grant, input.toolName, effects))) return { kind: "execute" };
  return { kind: "needs_approval", effects, reason: always ? "approval_always" : "tainted" };
}
