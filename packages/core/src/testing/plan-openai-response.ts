import type { FakeProviderRequest } from "./fake-provider-request.ts";
import { estimateTokens, splitText, type FakeProviderResponse, type NormalizedToolCall } from "./fake-provider-response.ts";

/** A response as the server will send it: status, headers and body parts (SSE events or one JSON). */
export interface WirePlan {
  status: number;
  headers: Record<string, string>;
  /** Each element is written separately (one SSE event, or the whole JSON body). */
  parts: string[];
}

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

/** Chat Completions wire format, as api.openai.com sends it. */
export function planOpenAIResponse(request: FakeProviderRequest, response: FakeProviderResponse, calls: NormalizedToolCall[], sequence: number): WirePlan {
  if (response.error) {
    const type =
      response.error.type ?? (response.error.status === 429 ? "rate_limit_exceeded" : response.error.status >= 500 ? "server_error" : "invalid_request_error");
    const body = { error: { message: response.error.message ?? `fake provider error ${response.error.status}`, type, param: null, code: type } };
    return { status: response.error.status, headers: { "content-type": "application/json", ...response.error.headers }, parts: [JSON.stringify(body)] };
  }
  const id = `chatcmpl-fake${sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const text = response.text ?? "";
  const finishReason = response.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop");
  const usage = response.usage ?? {
    inputTokens: estimateTokens(JSON.stringify(request.messages)),
    outputTokens: estimateTokens(text + calls.map((call) => call.argumentsText).join("")),
  };
  const usageBody = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };

  if (!request.stream) {
    const message: Record<string, unknown> = { role: "assistant", content: calls.length > 0 && text === "" ? null : text, refusal: null };
    if (calls.length > 0)
      message.tool_calls = calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.argumentsText } }));
    const body = {
      id,
      object: "chat.completion",
      created,
      model: request.model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      ...(response.omitUsage ? {} : { usage: usageBody }),
    };
    return { status: 200, headers: { "content-type": "application/json" }, parts: [JSON.stringify(body)] };
  }

  const streamOptions = request.body.stream_options as { include_usage?: unknown } | undefined;
  const includeUsage = streamOptions?.include_usage === true && !response.omitUsage;
  const template = chunkTemplate(id, created, request.model, includeUsage);
  const parts = [streamChunk(template, { role: "assistant", content: "", refusal: null }, null)];
  for (const piece of splitText(text, response.textChunkSize ?? 8)) parts.push(streamChunk(template, { content: piece }, null));
  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index]!;
    // As OpenAI does: id, type and name in the call's first delta, then the arguments in fragments.
    parts.push(streamChunk(template, { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }, null));
    for (const fragment of splitText(call.argumentsText, response.argumentsChunkSize ?? 8)) {
      parts.push(streamChunk(template, { tool_calls: [{ index, function: { arguments: fragment } }] }, null));
    }
  }
  parts.push(streamChunk(template, {}, finishReason));
  if (includeUsage) {
    parts.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, system_fingerprint: "fp_fake", choices: [], usage: usageBody })}\n\n`,
    );
  }
  parts.push("data: [DONE]\n\n");
  if (response.streamError) {
    const error = {
      message: response.streamError.message ?? "fake provider failed mid-stream",
      type: response.streamError.type ?? "server_error",
      param: null,
      code: null,
    };
    parts.splice(response.streamError.afterEvents, parts.length, `data: ${JSON.stringify({ error })}\n\n`);
  }
  return { status: 200, headers: SSE_HEADERS, parts };
}

/** What every `chat.completion.chunk` of one response shares, as JSON text around its delta. */
interface ChunkTemplate {
  /** `data: {"id":…,"choices":[{"index":0,"delta":` */
  beforeDelta: string;
  /** `…"usage":null}\n\n` (usage only when the client asked for it), after the finish reason. */
  afterFinish: string;
}

/**
 * A stream sends dozens of chunks that differ only in their delta and finish reason: their shared
 * JSON is written once, and each chunk is that text around `JSON.stringify(delta)`. The result is
 * byte for byte what `JSON.stringify` gives for the whole chunk object (same keys, same order), so
 * the client reads the same stream; only the fake provider's CPU, which shares the benchmark's cores
 * with what it measures, goes down.
 */
function chunkTemplate(id: string, created: number, model: string, includeUsage: boolean): ChunkTemplate {
  const shared = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"system_fingerprint":"fp_fake"`;
  return { beforeDelta: `data: ${shared},"choices":[{"index":0,"delta":`, afterFinish: `}]${includeUsage ? ',"usage":null' : ""}}\n\n` };
}

function streamChunk(template: ChunkTemplate, delta: Record<string, unknown>, finish: string | null): string {
  return `${template.beforeDelta}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}${template.afterFinish}`;
}
