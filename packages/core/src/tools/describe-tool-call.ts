import { canonicalJson } from "../runs/guards/call-signature.ts";
import type { ToolDefinition, ToolResult } from "./tool-definition.ts";

/** A description is cut to this many characters: it names a call on an approval card, it does not reproduce it. */
export const CALL_DESCRIPTION_MAX_CHARS = 200;

/** Arguments that say what a call read, in the order a generic description prefers them. */
const DESCRIBING_ARGUMENTS = ["path", "url", "query", "command"] as const;

/**
 * What a successful call read, in a few words for a person: the tool's own `describeCall`, or
 * else the first of its path, URL, query or command arguments, or else its arguments as JSON (an
 * MCP tool's, say). Whitespace is folded to single spaces and the text cut to 200 characters.
 */
export function describeToolCall(tool: Pick<ToolDefinition, "describeCall">, args: unknown, result: Extract<ToolResult, { ok: true }>): string {
  return shortened(tool.describeCall?.(args, result) ?? describeArguments(args));
}

function describeArguments(args: unknown): string {
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    for (const name of DESCRIBING_ARGUMENTS) {
      const value = record[name];
      if (typeof value === "string" && value.trim() !== "") return value;
    }
  }
  return canonicalJson(args ?? {});
}

function shortened(text: string): string {
  const folded = text.replace(/\s+/g, " ").trim();
  if (folded.length <= CALL_DESCRIPTION_MAX_CHARS) return folded;
  // Not half of a surrogate pair at the cut.
  return `${folded.slice(0, CALL_DESCRIPTION_MAX_CHARS - 1).replace(/[\uD800-\uDBFF]$/, "")}…`;
}
