import type { Span } from "@opentelemetry/api";
import { inSpan } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";

/** How a tool call's handling ended, on its span (`agentq.outcome`). */
export type ToolCallOutcome = "ok" | "error" | "refused" | "awaiting_approval" | "denied" | "withdrawn" | "outcome_unknown";

/**
 * Runs a call's handling (its execution, or its answer without running) inside an `agentq.tool_call`
 * span naming the run, the tool, the call and its effects; `work` returns the outcome, set on the span.
 */
export async function traceToolCall(
  execution: RunExecution,
  call: PendingCall,
  effects: readonly string[],
  work: (span: Span) => Promise<ToolCallOutcome> | ToolCallOutcome,
): Promise<void> {
  const attributes = {
    [TraceAttribute.runId]: execution.context.run.id,
    [TraceAttribute.toolName]: call.name,
    [TraceAttribute.toolCallId]: call.callId,
    [TraceAttribute.toolEffects]: [...effects],
  };
  await inSpan(SpanName.toolCall, attributes, async (span) => {
    span.setAttribute(TraceAttribute.outcome, await work(span));
  });
}
