/** The narrow interface the round loop uses to talk to a model (one implementation per provider). */

export interface ModelToolCall {
  /** The provider's call id; the loop normalizes missing or duplicate ids. */
  id: string;
  name: string;
  /** Raw arguments text as streamed; the loop parses and validates it. */
  argumentsText: string;
}

export type ModelMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ModelToolCall[] }
  | { role: "tool"; toolCallId: string; content: string; isError?: boolean };

export interface ModelToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelRequest {
  /** Provider-local model name (the `anthropic/` prefix already removed). */
  model: string;
  messages: ModelMessage[];
  /** Empty: the model is sent no tools. */
  tools: ModelToolSchema[];
  signal: AbortSignal;
  /** Silence longer than this ends the stream with a StreamTimeoutError. */
  inactivityTimeoutMs: number;
  /** Live text as it streams (not durable). */
  onTextDelta?: (text: string) => void;
  /**
   * Called when the first text or tool-call fragment arrives (time to first token, on the model call's
   * span); may be called again by a retried attempt. Optional for a provider: text deltas stand in.
   */
  onFirstToken?: () => void;
}

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  /** Provider's stop reason, normalized: `stop`, `tool_calls`, `length`, or the raw value. */
  finishReason: string;
}

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelResponse>;
}
