import { effectLabels } from "../../policy/effects.ts";
import { stageToolCallUpdate } from "../../store/run-statement.ts";
import { describeToolCall } from "../../tools/describe-tool-call.ts";
import type { ToolDefinition, ToolResult } from "../../tools/tool-definition.ts";
import { markSpanFailed } from "../../telemetry/in-span.ts";
import { answerToolCall } from "./answer-tool-call.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";
import { traceToolCall } from "./trace-tool-call.ts";

/** Records the call as started, runs it, and records its result: a commit before the handler, the result staged after. */
export function executeToolCall(execution: RunExecution, call: PendingCall, tool: ToolDefinition, args: unknown): Promise<void> {
  const effects = effectLabels(tool);
  return traceToolCall(execution, call, effects, async (span) => {
    execution.stage((change) => {
      change.events.push({ type: "tool.started", data: { tool_call_id: call.callId, tool: call.name, arguments: args } });
      stageToolCallUpdate(change, { id: call.rowId, status: "started", started: true, effects });
    });
    // Invariant 3: the call is recorded as started (with everything staged before it) before its handler runs.
    await execution.flush();
    const result = await runTool(execution, tool, args);
    // Only a successful result brings material in: a failed read taints nothing.
    answerToolCall(execution, call, result, tool.taints && result.ok ? { taints: { detail: describeToolCall(tool, args, result) } } : {});
    // Not the error's text: a tool's error can quote what it read, and spans carry no run content.
    if (!result.ok) markSpanFailed(span, "the tool returned an error");
    return result.ok ? "ok" : "error";
  });
}

/** A tool's handler; what it throws becomes a tool error for the model, never the run's failure. */
async function runTool(execution: RunExecution, tool: ToolDefinition, args: unknown): Promise<ToolResult> {
  const { run, workspace, settings } = execution.context;
  try {
    return await tool.execute(args, {
      runId: run.id,
      chatId: run.chatId,
      userId: run.userId,
      workspace,
      signal: execution.input.signal,
      fileReads: execution.fileReads,
      settings: { webFetchAllow: settings.web_fetch_allow, processNetwork: settings.process_network, mcpCallTimeoutSeconds: settings.mcp_call_timeout_seconds },
    });
  } catch (error) {
    return { ok: false, error: `the tool failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
