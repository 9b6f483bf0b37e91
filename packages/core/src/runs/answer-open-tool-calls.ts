import type { NewRunEvent } from "../events/run-event.ts";
import type { TransactionClient } from "../store/commit-run-change.ts";
import { appendChatMessages } from "./chat-messages.ts";

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

/**
 * How a call left without a result is answered: the one definition shared by the Prisma path below
 * (the worker's terminal transitions) and the plain-SQL cancel (cancel-run.ts).
 */
export function openCallAnswer(call: { callId: string; tool: string; status: string }, reasons: OpenCallReasons): OpenCallAnswer {
  const error = call.status === "started" ? reasons.reasonStarted : reasons.reasonNotStarted;
  return {
    error,
    content: `Error: ${error}`,
    event: { type: "tool.completed", data: { tool_call_id: call.callId, tool: call.tool, ok: false, error } },
  };
}

/**
 * Gives every call of the run that has no result yet an error result (cancel, interrupt, a fatal
 * error): every assistant tool call id is answered by exactly one tool message. Returns the
 * `tool.completed` events to append with the change.
 */
export async function answerOpenToolCalls(
  tx: TransactionClient,
  input: { runId: string; chatId: string; now: Date } & OpenCallReasons,
): Promise<NewRunEvent[]> {
  const open = await tx.toolCall.findMany({
    where: { runId: input.runId, status: { not: "completed" } },
    orderBy: [{ round: "asc" }, { position: "asc" }],
    select: { id: true, callId: true, tool: true, status: true },
  });
  if (open.length === 0) return [];
  const answers = open.map((call) => ({ call, answer: openCallAnswer(call, input) }));
  for (const { call, answer } of answers) {
    await tx.toolCall.update({ where: { id: call.id }, data: { status: "completed", ok: false, result: answer.error, completedAt: input.now } });
  }
  await tx.approval.updateMany({ where: { runId: input.runId, status: "pending" }, data: { status: "cancelled" } });
  // API.md: tool_calls counts calls "executed or answered"; these are answered.
  await tx.run.update({ where: { id: input.runId }, data: { toolCalls: { increment: answers.length } } });
  await appendChatMessages(tx, {
    chatId: input.chatId,
    runId: input.runId,
    now: input.now,
    messages: answers.map(({ call, answer }) => ({ role: "tool", toolCallId: call.callId, content: answer.content })),
  });
  return answers.map(({ answer }) => answer.event);
}
