import type { NewRunEvent } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { type RunStatementChange, stageToolCallUpdate } from "../store/run-statement.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import { selectOpenToolCalls } from "../store/statements/tool-call-statements.ts";

/** Why open calls get an error result: one reason for a call that never began, one for a call that was running. */
export interface OpenCallReasons {
  reasonNotStarted: string;
  reasonStarted: string;
}

/** The error result of one open call, its tool message and its `tool.completed` event. */
export interface OpenCallAnswer {
  error: string;
  content: string;
  event: NewRunEvent;
}

/** How a call left without a result is answered. */
export function openCallAnswer(call: { callId: string; tool: string; status: string }, reasons: OpenCallReasons): OpenCallAnswer {
  const error = call.status === "started" ? reasons.reasonStarted : reasons.reasonNotStarted;
  return {
    error,
    content: `Error: ${error}`,
    event: { type: "tool.completed", data: { tool_call_id: call.callId, tool: call.tool, ok: false, error } },
  };
}

/**
 * Stages, into a change of a run that is ending (cancel, interrupt, a fatal error), an error result
 * for every call that has none, in call order, so that every assistant tool call id is answered by
 * exactly one tool message; and the withdrawal of its pending approvals. The caller must hold the
 * run (its lease, or its row lock) from this read to the commit.
 */
export async function stageOpenCallAnswers(runner: SqlRunner, change: RunStatementChange, reasons: OpenCallReasons, generateId: GenerateId): Promise<void> {
  const open = await selectOpenToolCalls(runner, change.runId);
  for (const call of open) {
    const answer = openCallAnswer(call, reasons);
    stageToolCallUpdate(change, { id: call.id, status: "completed", ok: false, result: answer.error, completed: true });
    change.messages.push({ id: generateId("msg"), role: "tool", toolCallId: call.callId, content: answer.content });
    change.events.push(answer.event);
  }
  // API.md: tool_calls counts calls "executed or answered"; these are answered.
  change.increments.toolCalls += open.length;
  change.withdrawPendingApprovals = true;
}
