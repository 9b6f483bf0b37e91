/** One scripted answer of the fake provider server. Every field is optional; `{}` is an empty answer. */
export interface FakeProviderResponse {
  /** Assistant text, streamed in `textChunkSize`-character deltas. */
  text?: string;
  /** Tool calls, streamed after the text; an object `arguments` is JSON-encoded. Missing ids are generated. */
  toolCalls?: { id?: string; name: string; arguments?: string | Record<string, unknown> }[];
  /**
   * Wire finish/stop reason. Default: OpenAI `tool_calls` or `stop`; Anthropic `tool_use` or `end_turn`.
   */
  finishReason?: string;
  /** Reported usage. Default: a cheap estimate (characters / 4), never zero. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Send no usage at all (a server that ignores `stream_options`). */
  omitUsage?: boolean;
  /** Answer with this HTTP error instead (body in the provider's own error format). */
  error?: { status: number; message?: string; type?: string; headers?: Record<string, string> };
  /** Wait this long before sending the response headers. Default 0. */
  delayMs?: number;
  /**
   * Send nothing until the test calls `release(holdUntil)` on the server (a latch: the run stays "in
   * progress" exactly as long as the test needs, however slow the machine). Default: no hold.
   */
  holdUntil?: string;
  /** Wait this long between stream events. Default 0 (as fast as the socket takes them). */
  chunkDelayMs?: number;
  /** Stall for `stallMs` after this many stream events (0 = right after the headers). */
  stallAfterEvents?: number;
  /** Length of that stall. Default: "forever" (until the client goes away or the server closes). */
  stallMs?: number;
  /** Instead of `stallMs`: the stall lasts until the test calls `release(stallUntil)` (a latch mid-stream). */
  stallUntil?: string;
  /** Destroy the connection after `stallAfterEvents` events instead of stalling (a crashed server). */
  hangUp?: boolean;
  /**
   * Send an in-stream error event after `afterEvents` events, then end the stream, as providers do
   * when a generation fails mid-way (Anthropic `event: error` with `overloaded_error`; OpenAI-compatible
   * servers a `data: {"error": ...}` line). Type defaults to `overloaded_error` / `server_error`.
   */
  streamError?: { afterEvents: number; type?: string; message?: string };
  /** Characters per text delta. Default 8: several deltas for short texts, cheap for long ones. */
  textChunkSize?: number;
  /** Characters per arguments fragment. Default 8, so any real arguments arrive in several chunks. */
  argumentsChunkSize?: number;
}

export interface NormalizedToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

export function splitText(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += step) pieces.push(text.slice(start, start + step));
  return pieces;
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
