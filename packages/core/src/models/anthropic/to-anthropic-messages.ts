import type { ContentBlockParam, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { ModelMessage, ModelToolSchema } from "../model-client.ts";

export interface AnthropicPrompt {
  /** The leading system messages, joined; undefined when there are none. */
  system: string | undefined;
  messages: MessageParam[];
}

/**
 * ModelMessage → Messages API. Anthropic takes the system prompt as a separate `system` parameter,
 * wants strictly alternating user/assistant turns, and carries tool results as `tool_result`
 * blocks inside a user turn (before any text). So:
 * - leading system messages become `system`; a system message later in the conversation (a loop
 *   guard's instruction) becomes user text in place, since Anthropic has no mid-conversation system role;
 * - consecutive tool results (and any user text after them) merge into one user turn;
 * - assistant tool calls become `tool_use` blocks with their arguments parsed into `input`;
 * - empty text blocks are dropped (the API rejects them).
 */
export function toAnthropicMessages(messages: readonly ModelMessage[]): AnthropicPrompt {
  const systemParts: string[] = [];
  let index = 0;
  while (index < messages.length && messages[index]!.role === "system") {
    systemParts.push(messages[index]!.content as string);
    index += 1;
  }

  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const append = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: [...blocks] });
  };

  for (const message of messages.slice(index)) {
    switch (message.role) {
      case "system":
      case "user":
        append("user", message.content.length > 0 ? [{ type: "text", text: message.content }] : []);
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] = [];
        if (message.content) blocks.push({ type: "text", text: message.content });
        for (const call of message.toolCalls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: toToolInput(call.argumentsText) });
        append("assistant", blocks);
        break;
      }
      case "tool":
        append("user", [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }]);
        break;
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role ${JSON.stringify(unexpected)}`);
      }
    }
  }

  for (const turn of turns) {
    // tool_result blocks must come first in their user turn; the sort is stable, so order is kept otherwise.
    if (turn.role === "user") turn.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  }
  // The conversation must open with a user turn.
  if (turns[0]?.role !== "user") turns.unshift({ role: "user", content: [{ type: "text", text: "(continue)" }] });

  return { system: systemParts.length > 0 ? systemParts.join("\n\n") : undefined, messages: turns };
}

/**
 * `input` must be an object. Arguments that do not parse to one (the model streamed broken JSON,
 * which the loop already answered with a tool error) are kept as text so the model can see them.
 */
function toToolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { _raw_arguments: argumentsText };
}

export function toAnthropicTools(tools: readonly ModelToolSchema[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.parameters } as Tool.InputSchema,
  }));
}
