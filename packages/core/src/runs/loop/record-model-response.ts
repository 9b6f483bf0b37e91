import type { ModelResponse } from "../../models/model-client.ts";
import { normalizeToolCalls, toStoredToolCalls } from "../normalize-tool-calls.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";

/**
 * Stages the model's answer: the assistant message, `message.completed` with the usage, and a
 * `pending` row per tool call (ids normalized: unique in the chat). Committed with the first call's
 * start or the run's end. Returns the calls to handle, in the model's order.
 */
export function recordModelResponse(execution: RunExecution, response: ModelResponse, round: number): PendingCall[] {
  const { generateId } = execution.dependencies;
  const normalized = normalizeToolCalls(response.toolCalls, execution.usedCallIds, generateId);
  const storedCalls = toStoredToolCalls(normalized);
  const calls: PendingCall[] = normalized.map((call, position) => ({
    rowId: generateId("tc"),
    callId: call.id,
    name: call.name,
    argumentsText: call.argumentsText,
    round,
    position,
  }));
  const content = response.text.length > 0 ? response.text : null;
  execution.stage((change) => {
    change.increments.inputTokens += response.usage.inputTokens;
    change.increments.outputTokens += response.usage.outputTokens;
    change.events.push({
      type: "message.completed",
      data: {
        round,
        role: "assistant",
        content: response.text,
        tool_calls: storedCalls,
        usage: { input_tokens: response.usage.inputTokens, output_tokens: response.usage.outputTokens },
      },
    });
    change.messages.push({ id: generateId("msg"), role: "assistant", content, toolCalls: storedCalls });
    normalized.forEach((call, position) => {
      change.toolCallInserts.push({
        id: calls[position]!.rowId,
        callId: call.id,
        round,
        position,
        tool: call.name,
        arguments: call.storedArguments,
        status: "pending",
        effects: [],
      });
    });
  });
  execution.context.transcript.push({
    role: "assistant",
    content,
    ...(normalized.length > 0 ? { toolCalls: normalized.map((call) => ({ id: call.id, name: call.name, argumentsText: call.argumentsText })) } : {}),
  });
  return calls;
}
