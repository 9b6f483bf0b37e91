import { describe, expect, it } from "vitest";
import type { ModelClient, ModelRequest, ModelResponse } from "./model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "./model-errors.ts";
import { parseRetryAfter } from "./parse-retry-after.ts";
import { withRetries } from "./with-retries.ts";

const ok: ModelResponse = { text: "ok", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop" };

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "m", messages: [], tools: [], signal: new AbortController().signal, inactivityTimeoutMs: 1000, ...overrides };
}

function failing(errors: Error[], deltaBeforeFailing = false): ModelClient & { calls: number } {
  const client = {
    calls: 0,
    async complete(sent: ModelRequest) {
      client.calls += 1;
      const error = errors.shift();
      if (!error) return ok;
      if (deltaBeforeFailing) sent.onTextDelta?.("partial");
      throw error;
    },
  };
  return client;
}

const retryable = (details?: Record<string, unknown>) => new ModelProviderError("busy", { retryable: true, status: 503, ...(details ? { details } : {}) });

describe("withRetries", () => {
  it("retries retryable errors with growing, jittered delays", async () => {
    const inner = failing([retryable(), retryable()]);
    const delays: number[] = [];
    const response = await withRetries(inner, { baseDelayMs: 10, random: () => 0.5, onRetry: ({ delayMs }) => delays.push(delayMs) }).complete(request());
    expect(response).toBe(ok);
    expect(inner.calls).toBe(3);
    expect(delays).toEqual([8, 15]);
  });

  it("does not retry once text reached the caller", async () => {
    const inner = failing([retryable()], true);
    await expect(withRetries(inner, { baseDelayMs: 1 }).complete(request({ onTextDelta: () => {} }))).rejects.toBeInstanceOf(ModelProviderError);
    expect(inner.calls).toBe(1);
  });

  it("does not retry non-retryable errors or stream timeouts", async () => {
    const badRequest = failing([new ModelProviderError("bad", { retryable: false, status: 400 })]);
    await expect(withRetries(badRequest, { baseDelayMs: 1 }).complete(request())).rejects.toThrow("bad");
    expect(badRequest.calls).toBe(1);
    const stalled = failing([new StreamTimeoutError(1000)]);
    await expect(withRetries(stalled, { baseDelayMs: 1 }).complete(request())).rejects.toBeInstanceOf(StreamTimeoutError);
    expect(stalled.calls).toBe(1);
  });

  it("gives up at once when Retry-After is longer than maxRetryAfterMs", async () => {
    const inner = failing([retryable({ retry_after_ms: 120_000 })]);
    await expect(withRetries(inner, { maxRetryAfterMs: 60_000 }).complete(request())).rejects.toBeInstanceOf(ModelProviderError);
    expect(inner.calls).toBe(1);
  });

  it("stops waiting when the caller aborts during the backoff", async () => {
    const inner = failing([retryable()]);
    const controller = new AbortController();
    const pending = withRetries(inner, { baseDelayMs: 60_000, onRetry: () => setTimeout(() => controller.abort(new Error("stop")), 5) }).complete(
      request({ signal: controller.signal }),
    );
    await expect(pending).rejects.toThrow("stop");
    expect(inner.calls).toBe(1);
  });
});

describe("parseRetryAfter", () => {
  const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
  it("reads retry-after-ms, delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 21 Oct 2015 07:28:10 GMT" }), () => Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(headers({}))).toBeUndefined();
  });
});
