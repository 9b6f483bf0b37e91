import type { ModelToolCall } from "../models/model-client.ts";
import type { GenerateId } from "../ids.ts";
import type { StoredToolCall } from "./chat-messages.ts";

export interface NormalizedToolCall {
  /** Unique within the run: a missing or reused provider id is replaced. */
  id: string;
  name: string;
  argumentsText: string;
  /** What is stored and shown (API.md: a JSON object); invalid JSON is kept as `raw_arguments`. */
  storedArguments: Record<string, unknown>;
}

/**
 * Local models often omit call ids or reuse `call_0` in every round; ids must pair each call with
 * exactly one result across the whole chat, so a missing or already used id is replaced.
 */
export function normalizeToolCalls(calls: readonly ModelToolCall[], usedIds: Set<string>, generateId: GenerateId): NormalizedToolCall[] {
  return calls.map((call) => {
    let id = call.id.trim();
    if (id.length === 0 || id.length > 128 || usedIds.has(id)) id = generateId("call");
    usedIds.add(id);
    return { id, name: call.name.trim(), argumentsText: call.argumentsText, storedArguments: storedArgumentsOf(call.argumentsText) };
  });
}

function storedArgumentsOf(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(argumentsText);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through: the call is answered with a parse error, the text is kept for the record
  }
  return { raw_arguments: argumentsText };
}

export function toStoredToolCalls(calls: readonly NormalizedToolCall[]): StoredToolCall[] {
  return calls.map((call) => ({ id: call.id, name: call.name, arguments: call.storedArguments }));
}
