import { AgentqError } from "../errors/agentq-error.ts";

/** A provider failed. `retryable` is true for 429, 5xx and connection errors, never for other 4xx. */
export class ModelProviderError extends AgentqError {
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(
    message: string,
    options: {
      retryable: boolean;
      status?: number;
      code?: "model_provider_unreachable" | "model_provider_not_configured";
      details?: Record<string, unknown>;
      cause?: unknown;
    },
  ) {
    super(options.code ?? "model_provider_error", message, options.details, { cause: options.cause });
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

/** The provider sent nothing for longer than the inactivity timeout. */
export class StreamTimeoutError extends AgentqError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super("stream_timeout", `the model sent nothing for ${Math.round(timeoutMs / 1000)} s`, { timeout_ms: timeoutMs });
    this.timeoutMs = timeoutMs;
  }
}
