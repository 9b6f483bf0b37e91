import type { NewRunEvent } from "../events/run-event.ts";
import type { TransactionClient } from "../store/commit-run-change.ts";
import { appendChatMessages } from "./chat-messages.ts";

/**
 * Gives every call of the run that has no result yet an error result (cancel, interrupt, a fatal
 * error): every assistant tool call id is answered by exactly one tool message. Returns the
 * `tool.completed` events to append with the change.
 */
export async function answerOpenToolCalls(
  tx: TransactionClient,
  input: { runId: string; chatId: string; now: Date; reasonNotStarted: string; reasonStarted: string },
): Promise<NewRunEvent[]> {
  const open = await tx.toolCall.findMany({
    where: { runId: input.runId, status: { not: "completed" } },
    orderBy: [{ round: "asc" }, { position: "asc" }],
    select: { id: true, callId: true, tool: true, status: true },
  });
  if (open.length === 0) return [];
  const answers = open.map((call) => ({ call, error: call.status === "started" ? input.reasonStarted : input.reasonNotStarted }));
  for (const { call, error } of answers) {
    await tx.toolCall.update({ where: { id: call.id }, data: { status: "completed", ok: false, result: error, completedAt: input.now } });
  }
  await tx.approval.updateMany({ where: { runId: input.runId, status: "pending" }, data: { status: "cancelled" } });
  // API.md: tool_calls counts calls "executed or answered"; these are answered.
  await tx.run.update({ where: { id: input.runId }, data: { toolCalls: { increment: answers.length } } });
  await appendChatMessages(tx, {
    chatId: input.chatId,
    runId: input.runId,
    now: input.now,
    messages: answers.map(({ call, error }) => ({ role: "tool", toolCallId: call.callId, content: `Error: ${error}` })),
  });
  return answers.map(({ call, error }) => ({
    type: "tool.completed",
    data: { tool_call_id: call.callId, tool: call.tool, ok: false, error },
  }));
}
