import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ModelMessage, ModelToolSchema } from "../model-client.ts";
import { toolSchemaJson } from "../tool-schema-json.ts";

/**
 * ModelMessage → Chat Completions messages. Assistant turns carry `tool_calls`, tool results carry
 * `tool_call_id`. Chat Completions has no error flag on tool results, so the loop's result text must
 * say it failed (the executor writes it that way); we do not rewrite content here.
 */
export function toOpenAIMessages(messages: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        return { role: "user", content: message.content };
      case "assistant": {
        const toolCalls = message.toolCalls ?? [];
        if (toolCalls.length === 0) return { role: "assistant", content: message.content ?? "" };
        return {
          role: "assistant",
          // null (not "") next to tool calls: what OpenAI itself returns, and accepted by Ollama, vLLM and llama.cpp.
          content: message.content && message.content.length > 0 ? message.content : null,
          tool_calls: toolCalls.map((call) => ({
            id: call.id,
            type: "function" as const,
            // Servers that parse the history (llama.cpp, some vLLM templates) reject an empty arguments string.
            function: { name: call.name, arguments: call.argumentsText.trim() === "" ? "{}" : call.argumentsText },
          })),
        };
      }
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      default: {
        const unexpected: never = message;
        throw new Error(`unknown message role ${JSON.stringify(unexpected)}`);
      }
    }
  });
}

/** The request's `tools` array as JSON text, put together from each schema's JSON serialized once. */
export function openAIToolsJson(tools: readonly ModelToolSchema[]): string {
  return `[${tools.map((tool) => toolSchemaJson(tool, "openai", toOpenAIFunctionTool)).join(",")}]`;
}

function toOpenAIFunctionTool(tool: ModelToolSchema): ChatCompletionFunctionTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
