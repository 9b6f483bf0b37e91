import type { FakeProviderRequest } from "./fake-provider-request.ts";
import { estimateTokens, splitText, type FakeProviderResponse, type NormalizedToolCall } from "./fake-provider-response.ts";
import type { WirePlan } from "./plan-openai-response.ts";

const DEFAULT_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** Messages API wire format, as api.anthropic.com sends it. */
export function planAnthropicResponse(request: FakeProviderRequest, response: FakeProviderResponse, calls: NormalizedToolCall[], sequence: number): WirePlan {
  if (response.error) {
    const type = response.error.type ?? DEFAULT_ERROR_TYPES[response.error.status] ?? (response.error.status >= 500 ? "api_error" : "invalid_request_error");
    const body = { type: "error", error: { type, message: response.error.message ?? `fake provider error ${response.error.status}` } };
    return { status: response.error.status, headers: { "content-type": "application/json", ...response.error.headers }, parts: [JSON.stringify(body)] };
  }
  const id = `msg_fake${sequence}`;
  const text = response.text ?? "";
  const stopReason = response.finishReason ?? (calls.length > 0 ? "tool_use" : "end_turn");
  const usage = response.usage ?? {
    inputTokens: estimateTokens(JSON.stringify(request.messages)),
    outputTokens: estimateTokens(text + calls.map((call) => call.argumentsText).join("")),
  };
  const inputOf = (call: NormalizedToolCall): unknown => {
    try {
      return JSON.parse(call.argumentsText || "{}");
    } catch {
      return {};
    }
  };

  if (!request.stream) {
    const content: unknown[] = [];
    if (text !== "") content.push({ type: "text", text });
    for (const call of calls) content.push({ type: "tool_use", id: call.id, name: call.name, input: inputOf(call) });
    const body = {
      id,
      type: "message",
      role: "assistant",
      model: request.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: response.omitUsage ? { input_tokens: 0, output_tokens: 0 } : { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    };
    return { status: 200, headers: { "content-type": "application/json" }, parts: [JSON.stringify(body)] };
  }

  const event = (name: string, data: Record<string, unknown>) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const parts = [
    event("message_start", {
      message: {
        id,
        type: "message",
        role: "assistant",
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: response.omitUsage ? 0 : usage.inputTokens, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (text !== "") {
    parts.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    parts.push(event("ping", {}));
    for (const piece of splitText(text, response.textChunkSize ?? 8))
      parts.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    parts.push(event("content_block_stop", { index }));
    index += 1;
  }
  for (const call of calls) {
    parts.push(event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    // Anthropic opens each tool_use with an empty partial_json, then sends the JSON in fragments.
    parts.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
    const json = JSON.stringify(inputOf(call));
    for (const fragment of splitText(json, response.argumentsChunkSize ?? 8))
      parts.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fragment } }));
    parts.push(event("content_block_stop", { index }));
    index += 1;
  }
  parts.push(
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: response.omitUsage ? 0 : usage.outputTokens } }),
  );
  parts.push(event("message_stop", {}));
  if (response.streamError) {
    const error = { type: response.streamError.type ?? "overloaded_error", message: response.streamError.message ?? "Overloaded" };
    parts.splice(response.streamError.afterEvents, parts.length, event("error", { error }));
  }
  return { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" }, parts };
}
