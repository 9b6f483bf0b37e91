import type { NewRunEvent } from "../../events/run-event.ts";
import { decideToolCall, type GrantRef, type PauseReason } from "../../policy/decide-tool-call.ts";
import type { ToolOfferContext } from "../../policy/offered-tools.ts";
import type { AgentSettings } from "../../settings/agent-settings.ts";
import { parseToolArguments } from "../../tools/parse-tool-arguments.ts";
import type { ToolDefinition } from "../../tools/tool-definition.ts";
import { checkCallGuards } from "../guards/check-call-guards.ts";
import type { LoopState } from "../loop-state.ts";
import type { ToolCatalog } from "../run-loop-dependencies.ts";
import { assertNever } from "../run-outcome.ts";
import type { PendingCall } from "./pending-call.ts";

export interface HandleToolCallInput {
  call: PendingCall;
  tools: Pick<ToolCatalog, "get">;
  offer: ToolOfferContext;
  /** Untrusted material had entered the run when the model emitted the call. */
  tainted: boolean;
  grants: readonly GrantRef[];
  /** The tools sent in the call's round (null: not recorded, by an older release). */
  sentTools: readonly string[] | null;
  loopState: LoopState;
  settings: Pick<AgentSettings, "agent_repeated_call_limit" | "agent_max_tool_calls" | "approval_always">;
  toolCallsSoFar: number;
}

/** What to do with one call; the tool error goes back to the model as the call's result. */
export type ToolCallAction =
  | { kind: "refuse"; error: string; events: NewRunEvent[] }
  | { kind: "execute"; tool: ToolDefinition; args: unknown }
  | { kind: "needs_approval"; tool: ToolDefinition; args: unknown; effects: string[]; reason: PauseReason };

/**
 * The executor's handling of one call, before anything runs: the tool must exist and have been sent
 * in its round (invariant 8), the arguments must parse, the guards must pass; then policy says run
 * it or pause for approval. Pure: the counted call comes back as new loop state.
 */
export function handleToolCall(input: HandleToolCallInput): { action: ToolCallAction; loopState: LoopState } {
  const { call, loopState } = input;
  const tool = input.tools.get(call.name);
  if (!tool) {
    return { action: { kind: "refuse", error: `there is no tool named "${call.name}"; use one of the tools you were given`, events: [] }, loopState };
  }
  // Invariant 8 first: a call of a tool that was not sent in its round is refused before it can
  // count towards a guard or be parsed, let alone run.
  const decision = decideToolCall({
    tool,
    toolName: call.name,
    offer: input.offer,
    tainted: input.tainted,
    grants: input.grants,
    sentTools: input.sentTools,
    approvalAlways: input.settings.approval_always,
  });
  if (decision.kind === "refuse") return { action: { kind: "refuse", error: decision.reason, events: [] }, loopState };
  const parsed = parseToolArguments(tool, call.argumentsText);
  if (!parsed.ok) return { action: { kind: "refuse", error: parsed.error, events: [] }, loopState };
  const guards = checkCallGuards({
    loopState,
    settings: input.settings,
    toolCallsSoFar: input.toolCallsSoFar,
    toolName: call.name,
    toolCallId: call.callId,
    args: parsed.args,
  });
  if (guards.tripped) return { action: { kind: "refuse", error: guards.tripped.error, events: guards.tripped.events }, loopState: guards.loopState };
  switch (decision.kind) {
    case "needs_approval":
      return { action: { kind: "needs_approval", tool, args: parsed.args, effects: decision.effects, reason: decision.reason }, loopState: guards.loopState };
    case "execute":
      return { action: { kind: "execute", tool, args: parsed.args }, loopState: guards.loopState };
    default:
      return assertNever(decision);
  }
}
