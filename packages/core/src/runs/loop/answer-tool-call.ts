import type { NewRunEvent } from "../../events/run-event.ts";
import { mergeTaintSources } from "../../policy/taint-sources.ts";
import { stageToolCallUpdate } from "../../store/run-statement.ts";
import type { ToolResult } from "../../tools/tool-definition.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";

/** Results stored in events are capped: the full text is in the tool message. */
const EVENT_RESULT_LIMIT = 16 * 1024;

export interface AnswerOptions {
  /** Events committed before `tool.completed` (a guard's). */
  events?: NewRunEvent[];
  /**
   * A successful result of a tainting tool: it taints the run, and the call joins the run's taint
   * sources (while there are fewer than five) with `detail`, what it read (tools/describe-tool-call.ts).
   */
  taints?: { detail: string };
}

/**
 * Records a call's result: the tool message, the counters and `tool.completed`. Staged: it is
 * committed with the next step (the next call's start, the next round's start, the run's end).
 */
export function answerToolCall(execution: RunExecution, call: PendingCall, result: ToolResult, options: AnswerOptions = {}): void {
  const { run } = execution.context;
  const content = result.ok ? result.output : `Error: ${result.error}`;
  const taintsNow = options.taints !== undefined && !run.tainted;
  const taintedBy = options.taints
    ? mergeTaintSources(run.taintedBy, [{ run_id: run.id, tool_call_id: call.callId, tool: call.name, detail: options.taints.detail }])
    : run.taintedBy;
  const newSource = taintedBy.length > run.taintedBy.length;
  execution.stage((change) => {
    change.increments.toolCalls += 1;
    change.tainted ||= taintsNow;
    if (newSource) change.taintedBy = taintedBy;
    change.events.push(...(options.events ?? []), {
      type: "tool.completed",
      data: result.ok
        ? { tool_call_id: call.callId, tool: call.name, ok: true, result: capped(result.output), ...(result.data ? { data: result.data } : {}) }
        : { tool_call_id: call.callId, tool: call.name, ok: false, error: capped(result.error) },
    });
    stageToolCallUpdate(change, { id: call.rowId, status: "completed", ok: result.ok, result: content, completed: true });
    change.messages.push({ id: execution.dependencies.generateId("msg"), role: "tool", toolCallId: call.callId, content });
  });
  run.toolCalls += 1;
  if (taintsNow) run.tainted = true;
  if (newSource) run.taintedBy = taintedBy;
  execution.context.transcript.push({ role: "tool", toolCallId: call.callId, content, ...(result.ok ? {} : { isError: true }) });
}

function capped(text: string): string {
  return text.length <= EVENT_RESULT_LIMIT
    ? text
    : `${text.slice(0, EVENT_RESULT_LIMIT)}\n[... ${text.length - EVENT_RESULT_LIMIT} more characters in the tool message]`;
}
