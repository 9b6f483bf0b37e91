import type Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { ModelClient, ModelRequest, ModelResponse, ModelToolCall } from "../model-client.ts";
import { ModelProviderError, StreamTimeoutError } from "../model-errors.ts";
import { createStreamWatchdog, sdkRequestOptions } from "../stream-watchdog.ts";
import { toModelProviderError } from "../to-model-provider-error.ts";
import { withRetries, type RetryOptions } from "../with-retries.ts";
import { toAnthropicMessages, toAnthropicTools } from "./to-anthropic-messages.ts";

export interface AnthropicModelClientOptions {
  apiKey: string;
  /** Default `https://api.anthropic.com` (passed explicitly so the SDK never reads ANTHROPIC_BASE_URL itself). */
  baseURL?: string;
  /**
   * `max_tokens`, which the Messages API requires. Default 4096: every Claude model accepts it, and
   * an agent round's answer (text plus tool calls) rarely needs more; raise it for long file writes.
   */
  maxTokens?: number;
  /** Retries of retryable failures (429, 5xx, 529 overloaded, connection errors). Default 2. */
  maxRetries?: number;
  /** Backoff tuning. Defaults in RetryOptions. */
  retry?: Omit<RetryOptions, "maxRetries">;
  /** fetch implementation. Default: the global fetch. */
  fetch?: typeof fetch;
}

const STOP_REASONS: Record<string, string> = { end_turn: "stop", stop_sequence: "stop", tool_use: "tool_calls", max_tokens: "length" };

/**
 * A ModelClient for Anthropic's Messages API, streaming through the official SDK (its retries off;
 * withRetries does them). Errors as for the OpenAI client: ModelProviderError, StreamTimeoutError,
 * and `request.signal.reason` on cancel.
 */
export function createAnthropicModelClient(options: AnthropicModelClientOptions): ModelClient {
  const baseURL = (options.baseURL && options.baseURL.length > 0 ? options.baseURL : "https://api.anthropic.com").replace(/\/+$/, "");
  // The SDK is loaded at the first request: about 40 MB of memory that a deployment without an
  // anthropic/ model (and every API process) never pays.
  let sdk: Promise<Anthropic> | undefined;
  const loadSdk = () =>
    (sdk ??= import("@anthropic-ai/sdk").then(
      ({ default: AnthropicSdk }) => new AnthropicSdk({ apiKey: options.apiKey, baseURL, maxRetries: 0, ...(options.fetch ? { fetch: options.fetch } : {}) }),
    ));
  const maxTokens = options.maxTokens ?? 4096;

  async function attempt(request: ModelRequest): Promise<ModelResponse> {
    const prompt = toAnthropicMessages(request.messages);
    const params: MessageCreateParamsStreaming = {
      model: request.model,
      max_tokens: maxTokens,
      messages: prompt.messages,
      stream: true,
      ...(prompt.system !== undefined ? { system: prompt.system } : {}),
      ...(request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
    };
    const watchdog = createStreamWatchdog(request.signal, request.inactivityTimeoutMs);
    let text = "";
    let stopReason: string | null = null;
    let inputTokens = 0;
    let outputTokens = 0;
    let sawStop = false;
    const toolBlocks = new Map<number, { id: string; name: string; json: string; initialInput: unknown }>();
    try {
      const stream = await (await loadSdk()).messages.create(params, sdkRequestOptions(watchdog, request.inactivityTimeoutMs));
      watchdog.touch();
      let sawToken = false;
      for await (const event of stream) {
        watchdog.touch();
        if (!sawToken && (event.type === "content_block_start" || event.type === "content_block_delta")) {
          sawToken = true;
          request.onFirstToken?.();
        }
        switch (event.type) {
          case "message_start": {
            const usage = event.message.usage;
            // Cached input is still input the request carried; the budget cares about all of it.
            inputTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
            outputTokens = usage.output_tokens ?? 0;
            break;
          }
          case "content_block_start":
            if (event.content_block.type === "tool_use") {
              toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: "", initialInput: event.content_block.input });
            } else if (event.content_block.type === "text" && event.content_block.text) {
              text += event.content_block.text;
              request.onTextDelta?.(event.content_block.text);
            }
            break;
          case "content_block_delta":
            if (event.delta.type === "text_delta") {
              text += event.delta.text;
              if (event.delta.text.length > 0) request.onTextDelta?.(event.delta.text);
            } else if (event.delta.type === "input_json_delta") {
              const block = toolBlocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            break;
          case "message_delta":
            if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
            // output_tokens here is cumulative for the message, not an increment.
            if (typeof event.usage.output_tokens === "number") outputTokens = event.usage.output_tokens;
            if (typeof event.usage.input_tokens === "number" && event.usage.input_tokens > 0) {
              inputTokens = event.usage.input_tokens + (event.usage.cache_creation_input_tokens ?? 0) + (event.usage.cache_read_input_tokens ?? 0);
            }
            break;
          case "message_stop":
            sawStop = true;
            break;
          default:
            break;
        }
      }
      watchdog.throwIfStopped();
    } catch (error) {
      watchdog.throwIfStopped();
      throw error;
    } finally {
      watchdog.dispose();
    }
    if (!sawStop) {
      throw new ModelProviderError(`the anthropic model provider at ${baseURL} ended the stream before message_stop`, {
        retryable: true,
        details: { provider: "anthropic", base_url: baseURL },
      });
    }
    const toolCalls: ModelToolCall[] = [...toolBlocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, block]) => ({
        id: block.id,
        name: block.name,
        // A tool without parameters streams no JSON at all; the loop expects an object.
        argumentsText: block.json !== "" ? block.json : JSON.stringify(block.initialInput ?? {}),
      }));
    const finishReason = stopReason === null ? (toolCalls.length > 0 ? "tool_calls" : "stop") : (STOP_REASONS[stopReason] ?? stopReason);
    return { text, toolCalls, usage: { inputTokens, outputTokens }, finishReason };
  }

  const client: ModelClient = {
    async complete(request) {
      try {
        return await attempt(request);
      } catch (error) {
        if (request.signal.aborted || error instanceof StreamTimeoutError) throw error;
        throw toModelProviderError(error, { provider: "anthropic", baseURL });
      }
    },
  };
  return withRetries(client, { ...options.retry, maxRetries: options.maxRetries ?? 2 });
}
