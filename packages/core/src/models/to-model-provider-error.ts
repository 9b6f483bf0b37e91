import { ModelProviderError } from "./model-errors.ts";
import { parseRetryAfter } from "./parse-retry-after.ts";

/** Error types some providers send inside a stream (no HTTP status) that are worth retrying. */
const RETRYABLE_ERROR_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "server_error", "timeout_error"]);

export interface ProviderErrorContext {
  /** `openai` or `anthropic`, for the message and details. */
  provider: string;
  /** The endpoint that was tried, named in connection errors so an operator can fix the setting. */
  baseURL: string;
}

/**
 * Maps an error thrown by the `openai` or `@anthropic-ai/sdk` SDK (both share the Stainless error
 * shape: `status`, `headers`, `error`) to a ModelProviderError. 429 and 5xx are retryable, as are
 * connection errors and timeouts; every other 4xx is not (the same request would fail again).
 * `details.retry_after_ms` carries the provider's Retry-After, which withRetries honours.
 */
export function toModelProviderError(error: unknown, context: ProviderErrorContext): ModelProviderError {
  if (error instanceof ModelProviderError) return error;
  const name = error instanceof Error ? error.constructor.name || error.name : "";
  const details: Record<string, unknown> = { provider: context.provider, base_url: context.baseURL };

  if (name === "APIConnectionError" || name === "APIConnectionTimeoutError" || isNetworkError(error)) {
    const reason = describeCause(error);
    return new ModelProviderError(`could not connect to the ${context.provider} model provider at ${context.baseURL}${reason ? ` (${reason})` : ""}`, {
      retryable: true,
      code: "model_provider_unreachable",
      details,
      cause: error,
    });
  }

  const apiError = error as { status?: unknown; headers?: { get(name: string): string | null }; error?: unknown; message?: unknown };
  const status = typeof apiError.status === "number" ? apiError.status : undefined;
  const providerMessage = extractMessage(apiError.error) ?? (error instanceof Error ? error.message : String(error));
  const errorType = extractType(apiError.error);
  if (errorType) details.error_type = errorType;
  if (status !== undefined) details.status = status;
  const retryAfterMs = parseRetryAfter(apiError.headers);
  if (retryAfterMs !== undefined) details.retry_after_ms = retryAfterMs;

  const retryable = status === undefined ? errorType === undefined || RETRYABLE_ERROR_TYPES.has(errorType) : status === 429 || status >= 500;
  const prefix = status === undefined ? `the ${context.provider} model provider failed` : `the ${context.provider} model provider answered ${status}`;
  // A 404 for the whole endpoint is nearly always a wrong base URL (Ollama's without `/v1`, say): say which one.
  const hint = status === 404 ? ` (is ${context.baseURL} the right base URL?)` : "";
  return new ModelProviderError(`${prefix}: ${providerMessage}${hint}`, {
    retryable,
    ...(status === undefined ? {} : { status }),
    details,
    cause: error,
  });
}

function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR_\w+)$/.test(code);
}

/** Finds the innermost system error code or message (undici nests it: TypeError "fetch failed" → cause). */
function describeCause(error: unknown): string | undefined {
  let current: unknown = error;
  let found: string | undefined;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code.length > 0) found = code;
    else if (depth > 0 && current.message) found ??= current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return found;
}

function extractMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === "string") return record.message;
  // Anthropic nests: {"type":"error","error":{"type","message"}}
  if (record.error && typeof record.error === "object") return extractMessage(record.error);
  return undefined;
}

function extractType(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  if (record.error && typeof record.error === "object") return extractType(record.error);
  if (typeof record.type === "string" && record.type !== "error") return record.type;
  if (typeof record.code === "string") return record.code;
  return undefined;
}
