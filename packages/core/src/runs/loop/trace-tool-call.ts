import type { Span } from "@opentelemetry/api";
import { inSpan } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import { type AnswerOptions, answerToolCall } from "./answer-tool-call.ts";
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
  const attributes = () => ({
    [TraceAttribute.runId]: execution.context.run.id,
    [TraceAttribute.toolName]: call.name,
    [TraceAttribute.toolCallId]: call.callId,
    [TraceAttribute.toolEffects]: [...effects],
  });
  await inSpan(SpanName.toolCall, attributes, async (span) => {
    span.setAttribute(TraceAttribute.outcome, await work(span));
  });
}

/** Answers a call with a tool error for the model without running it (refused, denied, withdrawn...), under its tool-call span. */
export function answerWithoutRunning(
  execution: RunExecution,
  call: PendingCall,
  outcome: ToolCallOutcome,
  error: string,
  options: Pick<AnswerOptions, "events"> = {},
): Promise<void> {
  return traceToolCall(execution, call, [], () => {
    answerToolCall(execution, call, { ok: false, error }, options);
    return outcome;
  });
}
