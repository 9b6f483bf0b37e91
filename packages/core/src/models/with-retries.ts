import type { ModelClient, ModelRequest, ModelResponse } from "./model-client.ts";
import { ModelProviderError } from "./model-errors.ts";
import { throwAbortReason } from "./is-abort-error.ts";

export interface RetryOptions {
  /** Retries after the first attempt. Default 2 (the SDKs' own default), so 3 attempts in all. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry. Default 500 ms: long enough for a restarting local server. */
  baseDelayMs?: number;
  /** Ceiling of one backoff delay. Default 8000 ms. */
  maxDelayMs?: number;
  /**
   * Longest Retry-After we wait for. Default 60000 ms: a provider asking for more is effectively down,
   * and a run should fail visibly rather than hold a worker slot silently.
   */
  maxRetryAfterMs?: number;
  /** Observes each retry (logging, metrics, tests). */
  onRetry?: (event: { attempt: number; delayMs: number; error: ModelProviderError }) => void;
  /** Source of jitter in [0, 1). Default Math.random. */
  random?: () => number;
}

/**
 * Wraps a ModelClient so retryable ModelProviderErrors (429, 5xx, connection errors) are retried
 * with exponential backoff and jitter, honouring the provider's Retry-After. The provider clients
 * run their SDKs with maxRetries 0 so this is the only retry layer, observable through `onRetry`.
 *
 * An attempt that already published text through `onTextDelta` is never retried: the caller has
 * shown that text, and a second attempt would show it again (different, or twice). Tool-call
 * fragments are not published, so a failure before any text is still retried. A StreamTimeoutError
 * is not retried either: the inactivity timeout is long (minutes) and the loop reports it as a guard.
 */
export function withRetries(client: ModelClient, options: RetryOptions = {}): ModelClient {
  const maxRetries = options.maxRetries ?? 2;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const random = options.random ?? Math.random;

  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      for (let attempt = 0; ; attempt += 1) {
        let published = false;
        const onTextDelta = request.onTextDelta;
        const attemptRequest: ModelRequest = onTextDelta
          ? {
              ...request,
              onTextDelta: (text) => {
                if (text.length > 0) published = true;
                onTextDelta(text);
              },
            }
          : request;
        try {
          return await client.complete(attemptRequest);
        } catch (error) {
          if (request.signal.aborted) throwAbortReason(request.signal);
          if (!(error instanceof ModelProviderError) || !error.retryable || published || attempt >= maxRetries) throw error;
          const retryAfterMs = typeof error.details?.retry_after_ms === "number" ? error.details.retry_after_ms : undefined;
          if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) throw error;
          const backoffMs = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
          // "Equal jitter": at least half the backoff, so retries from many workers spread out without collapsing to 0.
          const delayMs = retryAfterMs ?? Math.round(backoffMs / 2 + (random() * backoffMs) / 2);
          options.onRetry?.({ attempt: attempt + 1, delayMs, error });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}

function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      try {
        throwAbortReason(signal);
      } catch (error) {
        reject(error);
      }
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      try {
        throwAbortReason(signal);
      } catch (error) {
        reject(error);
      }
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
