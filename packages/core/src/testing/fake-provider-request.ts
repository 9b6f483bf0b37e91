import type { IncomingHttpHeaders } from "node:http";
import type { ModelMessage, ModelToolSchema } from "../models/model-client.ts";

/**
 * A request the fake provider received, with its wire body normalized back into ModelMessages so a
 * script reads the same shape whichever API the client spoke.
 */
export interface FakeProviderRequest {
  api: "openai" | "anthropic";
  path: string;
  model: string;
  stream: boolean;
  messages: ModelMessage[];
  tools: ModelToolSchema[];
  headers: IncomingHttpHeaders;
  /** The parsed JSON body exactly as sent. */
  body: Record<string, unknown>;
}

/** The newest tool result, with the name of the tool whose call it answers. */
export function lastToolResult(
  request: Pick<FakeProviderRequest, "messages">,
): { toolCallId: string; toolName: string | undefined; content: string; isError: boolean } | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  return { toolCallId: last.toolCallId, toolName: toolNameFor(request, last.toolCallId), content: last.content, isError: last.isError ?? false };
}

/** The name of the tool an assistant call with this id invoked. */
export function toolNameFor(request: Pick<FakeProviderRequest, "messages">, toolCallId: string): string | undefined {
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    const call = message.toolCalls?.find((candidate) => candidate.id === toolCallId);
    if (call) return call.name;
  }
  return undefined;
}

/** The newest user message's text. */
export function lastUserText(request: Pick<FakeProviderRequest, "messages">): string | undefined {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index]!;
    if (message.role === "user") return message.content;
  }
  return undefined;
}

export function parseOpenAIRequest(path: string, body: Record<string, unknown>, headers: IncomingHttpHeaders): FakeProviderRequest {
  const messages: ModelMessage[] = [];
  for (const raw of asArray(body.messages)) {
    const message = asRecord(raw);
    const role = message.role;
    if (role === "system" || role === "developer") messages.push({ role: "system", content: textOf(message.content) });
    else if (role === "user") messages.push({ role: "user", content: textOf(message.content) });
    else if (role === "assistant") {
      const toolCalls = asArray(message.tool_calls).map((rawCall) => {
        const call = asRecord(rawCall);
        const fn = asRecord(call.function);
        return { id: String(call.id ?? ""), name: String(fn.name ?? ""), argumentsText: String(fn.arguments ?? "") };
      });
      const content = message.content === null || message.content === undefined ? null : textOf(message.content);
      messages.push(toolCalls.length > 0 ? { role: "assistant", content, toolCalls } : { role: "assistant", content });
    } else if (role === "tool") messages.push({ role: "tool", toolCallId: String(message.tool_call_id ?? ""), content: textOf(message.content) });
  }
  const tools = asArray(body.tools).map((rawTool) => {
    const fn = asRecord(asRecord(rawTool).function);
    return { name: String(fn.name ?? ""), description: String(fn.description ?? ""), parameters: asRecord(fn.parameters) };
  });
  return { api: "openai", path, model: String(body.model ?? ""), stream: body.stream === true, messages, tools, headers, body };
}

export function parseAnthropicRequest(path: string, body: Record<string, unknown>, headers: IncomingHttpHeaders): FakeProviderRequest {
  const messages: ModelMessage[] = [];
  if (body.system !== undefined) messages.push({ role: "system", content: textOf(body.system) });
  for (const raw of asArray(body.messages)) {
    const message = asRecord(raw);
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : asArray(message.content).map(asRecord);
    if (message.role === "assistant") {
      const text = blocks
        .filter((block) => block.type === "text")
        .map((block) => String(block.text ?? ""))
        .join("");
      const toolCalls = blocks
        .filter((block) => block.type === "tool_use")
        .map((block) => ({ id: String(block.id ?? ""), name: String(block.name ?? ""), argumentsText: JSON.stringify(block.input ?? {}) }));
      messages.push(toolCalls.length > 0 ? { role: "assistant", content: text === "" ? null : text, toolCalls } : { role: "assistant", content: text });
      continue;
    }
    for (const block of blocks.filter((candidate) => candidate.type === "tool_result")) {
      messages.push({ role: "tool", toolCallId: String(block.tool_use_id ?? ""), content: textOf(block.content ?? ""), isError: block.is_error === true });
    }
    const text = blocks.filter((block) => block.type === "text").map((block) => String(block.text ?? ""));
    if (text.length > 0) messages.push({ role: "user", content: text.join("\n") });
  }
  const tools = asArray(body.tools).map((rawTool) => {
    const tool = asRecord(rawTool);
    return { name: String(tool.name ?? ""), description: String(tool.description ?? ""), parameters: asRecord(tool.input_schema) };
  });
  return { api: "anthropic", path, model: String(body.model ?? ""), stream: body.stream === true, messages, tools, headers, body };
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Content as text: a string, or the text parts of a content-part array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => asRecord(part))
    .filter((part) => typeof part.text === "string")
    .map((part) => part.text as string)
    .join("");
}
