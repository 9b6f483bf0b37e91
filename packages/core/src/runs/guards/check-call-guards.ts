import type { NewRunEvent } from "../../events/run-event.ts";
import type { AgentSettings } from "../../settings/agent-settings.ts";
import type { LoopState } from "../loop-state.ts";
import { callSignature } from "./call-signature.ts";

export interface CheckCallGuardsInput {
  loopState: LoopState;
  settings: Pick<AgentSettings, "agent_repeated_call_limit" | "agent_max_tool_calls">;
  /** Tool calls the run has answered so far (the call budget counts them). */
  toolCallsSoFar: number;
  toolName: string;
  toolCallId: string;
  args: unknown;
}

export interface CallGuardsResult {
  /** The call counted; a tripped guard also withdraws the tools for one final answer round. */
  loopState: LoopState;
  /** Set when a guard refuses the call: the tool error for the model and the guard's event. */
  tripped: { error: string; events: NewRunEvent[] } | null;
}

/** Repeated identical calls (`agent_repeated_call_limit`) and the call budget (`agent_max_tool_calls`). Pure. */
export function checkCallGuards(input: CheckCallGuardsInput): CallGuardsResult {
  const { settings, toolName, toolCallId } = input;
  const signature = callSignature(toolName, input.args);
  const count = (input.loopState.callCounts[signature] ?? 0) + 1;
  const counted: LoopState = { ...input.loopState, callCounts: { ...input.loopState.callCounts, [signature]: count } };
  if (count >= settings.agent_repeated_call_limit) {
    return {
      loopState: { ...counted, finalAnswerRound: true },
      tripped: {
        error: `this exact call has been made ${count} times in this run and its result will not change; stop calling it and give your answer`,
        events: [{ type: "guard.triggered", data: { guard: "repeated_call", tool: toolName, tool_call_id: toolCallId, count } }],
      },
    };
  }
  const limit = settings.agent_max_tool_calls;
  if (limit > 0 && input.toolCallsSoFar >= limit) {
    return {
      loopState: { ...counted, finalAnswerRound: true },
      tripped: {
        error: `the run has used its budget of ${limit} tool calls (agent_max_tool_calls); give your answer with what you have`,
        events: [{ type: "guard.triggered", data: { guard: "call_budget", limit, tool_call_id: toolCallId } }],
      },
    };
  }
  return { loopState: counted, tripped: null };
}
