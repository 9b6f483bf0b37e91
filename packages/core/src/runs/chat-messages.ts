import type { TransactionClient } from "../store/commit-run-change.ts";
import type { Prisma } from "../store/create-prisma-client.ts";
import type { GenerateId } from "../ids.ts";
import { generateId as defaultGenerateId } from "../ids.ts";

/** A stored tool call on an assistant message (API.md `Message.tool_calls`). */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type NewChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: StoredToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

/**
 * Appends messages to a chat with the next positions. The chat row's counter is bumped in the same
 * statement that locks it, so concurrent appenders never collide.
 */
export async function appendChatMessages(
  tx: TransactionClient,
  input: { chatId: string; runId: string; messages: NewChatMessage[]; now: Date; generateId?: GenerateId },
): Promise<void> {
  if (input.messages.length === 0) return;
  const generateId = input.generateId ?? defaultGenerateId;
  const [chat] = await tx.$queryRaw<{ message_count: number }[]>`
    UPDATE chats SET message_count = message_count + ${input.messages.length}, updated_at = ${input.now}
    WHERE id = ${input.chatId} RETURNING message_count`;
  if (!chat) throw new Error(`chat ${input.chatId} vanished while appending messages`);
  const firstPosition = chat.message_count - input.messages.length + 1;
  await tx.message.createMany({
    data: input.messages.map((message, index) => ({
      id: generateId("msg"),
      chatId: input.chatId,
      runId: input.runId,
      position: firstPosition + index,
      role: message.role,
      content: message.content,
      toolCalls: message.role === "assistant" && message.toolCalls?.length ? (message.toolCalls as unknown as Prisma.InputJsonValue) : undefined,
      toolCallId: message.role === "tool" ? message.toolCallId : null,
      createdAt: input.now,
    })),
  });
}
