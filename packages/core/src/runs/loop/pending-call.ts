/** A call of the model waiting to be handled, as stored in `tool_calls`. */
export interface PendingCall {
  rowId: string;
  callId: string;
  name: string;
  argumentsText: string;
  round: number;
  position: number;
}

/** The text the model sent for a stored call's arguments (unparseable text is stored as `raw_arguments`). */
export function argumentsTextOf(stored: unknown): string {
  if (stored !== null && typeof stored === "object" && !Array.isArray(stored)) {
    const entries = Object.entries(stored as Record<string, unknown>);
    if (entries.length === 1 && entries[0]![0] === "raw_arguments" && typeof entries[0]![1] === "string") return entries[0]![1];
  }
  return JSON.stringify(stored ?? {});
}
