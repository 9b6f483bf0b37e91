import { generateId } from "../../ids.ts";
import type { ModelClient, ModelRequest, ModelResponse, ModelUsage } from "../model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "../model-errors.ts";
import { countMessageTokens, countTokens as defaultCountTokens, type CountTokens } from "../count-tokens.ts";
import { createStreamWatchdog } from "../stream-watchdog.ts";
import { toModelProviderError } from "../to-model-provider-error.ts";
import { withRetries, type RetryOptions } from "../with-retries.ts";
import { OpenAIToolCallAccumulator } from "./openai-tool-call-accumulator.ts";
import { createChatCompletionTransport } from "./stream-chat-completion.ts";
import { openAIToolsJson, toOpenAIMessages } from "./to-openai-messages.ts";

export interface OpenAIModelClientOptions {
  /** Base URL of any Chat Completions server, including `/v1` (`http://127.0.0.1:11434/v1` for Ollama). */
  baseURL: string;
  /** Bearer key. Default: none (local servers: Ollama, llama.cpp, vLLM without --api-key); no Authorization header is sent. */
  apiKey?: string;
  /** Retries of retryable failures (429, 5xx, connection errors). Default 2. See withRetries. */
  maxRetries?: number;
  /** Backoff tuning (delays, Retry-After ceiling, onRetry observer). Defaults in RetryOptions. */
  retry?: Omit<RetryOptions, "maxRetries">;
  /**
   * Whether to send `stream_options: {include_usage: true}` (the only way to get usage from a
   * stream). Default "auto": send it, and if a server rejects it with a 400 that names
   * `stream_options` (older llama.cpp, LM Studio and proxies), resend once without it and stop
   * sending it for this client. Without usage from the server, usage is estimated with the tokenizer.
   */
  streamUsage?: boolean | "auto";
  /** Token counter for estimated usage. Default: countTokens (cl100k_base). */
  countTokens?: CountTokens;
  /** Id for a tool call the server sent without one. Default: `call_<random>`. */
  generateCallId?: () => string;
}

/**
 * A ModelClient for OpenAI-compatible Chat Completions servers (OpenAI, Ollama, vLLM, llama.cpp,
 * LM Studio), streaming over node:http (stream-chat-completion.ts: the hottest call of a run, a third
 * of the SDK's cost). withRetries does the retries so they are observable and never repeat published text.
 *
 * Errors: ModelProviderError (retryable or not), StreamTimeoutError after `inactivityTimeoutMs` of
 * silence, and on cancel `request.signal.reason` (see isAbortError).
 */
export function createOpenAIModelClient(options: OpenAIModelClientOptions): ModelClient {
  const baseURL = options.baseURL.replace(/\/+$/, "");
  const transport = createChatCompletionTransport({ baseURL, apiKey: options.apiKey });
  const count = options.countTokens ?? defaultCountTokens;
  const generateCallId = options.generateCallId ?? (() => generateId("call"));
  let sendStreamUsage = options.streamUsage !== false;
  const mayFallBack = options.streamUsage === undefined || options.streamUsage === "auto";

  async function attempt(request: ModelRequest, includeUsage: boolean): Promise<ModelResponse> {
    const watchdog = createStreamWatchdog(request.signal, request.inactivityTimeoutMs);
    // Serialized here rather than as one object: the tool schemas' JSON is made once per schema.
    const body = `{"model":${JSON.stringify(request.model)},"messages":${JSON.stringify(toOpenAIMessages(request.messages))},"stream":true${
      includeUsage ? ',"stream_options":{"include_usage":true}' : ""
    }${
      // An empty `tools` array is rejected by some servers; "no tools" is expressed by leaving it out.
      request.tools.length > 0 ? `,"tools":${openAIToolsJson(request.tools)}` : ""
    }}`;
    let text = "";
    let finishReason: string | null = null;
    let usage: ModelUsage | undefined;
    let chunks = 0;
    let sawToken = false;
    const toolCalls = new OpenAIToolCallAccumulator(generateCallId);
    try {
      for await (const chunk of transport.stream(body, watchdog.signal)) {
        watchdog.touch();
        chunks += 1;
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
        if (!choice) continue;
        const content = choice.delta?.content;
        if (!sawToken && ((typeof content === "string" && content.length > 0) || (choice.delta?.tool_calls?.length ?? 0) > 0)) {
          sawToken = true;
          request.onFirstToken?.();
        }
        if (typeof content === "string" && content.length > 0) {
          text += content;
          request.onTextDelta?.(content);
        }
        for (const delta of choice.delta?.tool_calls ?? []) toolCalls.add(delta);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      // An abort can end the response quietly: find out whether that is what happened.
      watchdog.throwIfStopped();
    } catch (error) {
      watchdog.throwIfStopped();
      throw error;
    } finally {
      watchdog.dispose();
    }
    if (chunks === 0) {
      throw new ModelProviderError(`the openai model provider at ${baseURL} closed the stream without sending anything`, {
        retryable: true,
        details: { provider: "openai", base_url: baseURL },
      });
    }
    const calls = toolCalls.finish();
    return {
      text,
      toolCalls: calls,
      usage: usage ?? estimateUsage(request, text, calls, count),
      finishReason: normalizeFinishReason(finishReason, calls.length > 0),
    };
  }

  const client: ModelClient = {
    async complete(request) {
      const includeUsage = sendStreamUsage;
      try {
        return await attempt(request, includeUsage);
      } catch (error) {
        if (includeUsage && mayFallBack && rejectsStreamOptions(error)) {
          sendStreamUsage = false;
          try {
            return await attempt(request, false);
          } catch (retryError) {
            throw mapError(retryError, request);
          }
        }
        throw mapError(error, request);
      }
    },
  };

  function mapError(error: unknown, request: ModelRequest): unknown {
    // Cancel reasons and stream timeouts pass through untouched; everything else becomes a ModelProviderError.
    if (request.signal.aborted || error instanceof StreamTimeoutError) return error;
    return toModelProviderError(error, { provider: "openai", baseURL });
  }

  return withRetries(client, { ...options.retry, maxRetries: options.maxRetries ?? 2 });
}

function rejectsStreamOptions(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return (status === 400 || status === 422) && error instanceof Error && /stream_options|include_usage/i.test(error.message);
}

function normalizeFinishReason(finishReason: string | null, hasToolCalls: boolean): string {
  // Ollama and some llama.cpp versions answer "stop" next to tool calls; the calls are what matter.
  if (hasToolCalls && (finishReason === null || finishReason === "stop" || finishReason === "function_call")) return "tool_calls";
  return finishReason ?? "stop";
}

function estimateUsage(request: ModelRequest, text: string, calls: { name: string; argumentsText: string }[], count: CountTokens): ModelUsage {
  let outputTokens = count(text);
  for (const call of calls) outputTokens += count(call.name) + count(call.argumentsText);
  return { inputTokens: countMessageTokens(request.messages, request.tools, count), outputTokens };
}
