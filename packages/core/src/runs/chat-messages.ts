/** A stored tool call on an assistant message (API.md `Message.tool_calls`). */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
