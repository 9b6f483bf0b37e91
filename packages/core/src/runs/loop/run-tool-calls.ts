import type { TaintSource } from "../../policy/taint-sources.ts";
import { assertNever, type StepOutcome } from "../run-outcome.ts";
import { executeToolCall } from "./execute-tool-call.ts";
import { handleToolCall } from "./handle-tool-call.ts";
import { type ApprovalRequest, parkForApproval } from "./park-for-approval.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";
import { answerWithoutRunning, traceToolCall } from "./trace-tool-call.ts";

export interface RunToolCallsOptions {
  /** Whether the run was tainted when the model emitted the calls (their round's start). */
  tainted: boolean;
  /** The calls that had tainted the run by then: a paused call names them as the reason. */
  taintedBy: readonly TaintSource[];
  /** The tools sent in the calls' round (null: not recorded, by an older release). */
  sentTools: readonly string[] | null;
}

/**
 * Handles a round's calls in order: refused ones are answered, allowed ones run (recorded as started
 * first, invariant 3), and the ones policy pauses are parked together once the others are done.
 */
export async function runToolCalls(execution: RunExecution, calls: readonly PendingCall[], options: RunToolCallsOptions): Promise<StepOutcome> {
  const approvals: ApprovalRequest[] = [];
  for (const call of calls) {
    const interruption = execution.interruption();
    if (interruption) return { kind: "stop", outcome: interruption };
    const handled = handleToolCall({
      call,
      tools: execution.dependencies.tools,
      offer: execution.offerContext,
      tainted: options.tainted,
      grants: execution.context.grants,
      sentTools: options.sentTools,
      loopState: execution.loopState,
      settings: execution.context.settings,
      toolCallsSoFar: execution.context.run.toolCalls,
    });
    execution.loopState = handled.loopState;
    const { action } = handled;
    switch (action.kind) {
      case "refuse":
        await answerWithoutRunning(execution, call, "refused", action.error, { events: action.events });
        break;
      case "needs_approval":
        approvals.push({ call, tool: action.tool, args: action.args, effects: action.effects, reason: action.reason });
        await traceToolCall(execution, call, action.effects, () => "awaiting_approval");
        break;
      case "execute":
        await executeToolCall(execution, call, action.tool, action.args);
        break;
      default:
        assertNever(action);
    }
  }
  if (approvals.length > 0) return parkForApproval(execution, approvals, { taintedBy: options.tainted ? options.taintedBy : [] });
  return { kind: "next_round" };
}
