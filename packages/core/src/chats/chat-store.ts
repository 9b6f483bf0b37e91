import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import type { StoredToolCall } from "../runs/chat-messages.ts";
import { type Db, type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { insertChat, selectOwnChat } from "../store/statements/chat-statements.ts";

export interface ChatView {
  id: string;
  title: string;
  workspace_id: string | null;
}

/** API.md `Message`. */
export interface MessageView {
  role: "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: StoredToolCall[];
  tool_call_id?: string;
}

/** Creates a chat owned by the user; a workspace that is not the user's is `404` like a missing one. */
export async function createChat(
  prisma: PrismaClient,
  input: { userId: string; title: string | undefined; workspaceId: string | undefined; generateId: GenerateId },
): Promise<ChatView> {
  const chat = await insertChat(sqlPoolOf(prisma), {
    id: input.generateId("chat"),
    userId: input.userId,
    title: input.title ?? "New chat",
    workspaceId: input.workspaceId ?? null,
  });
  if (!chat) throw new NotFoundError("workspace", { workspace_id: input.workspaceId });
  return chat;
}

/** The chat's id, if the user owns it; `404` otherwise (invariant 7). */
export async function requireOwnChat(prisma: PrismaClient, userId: string, chatId: string): Promise<{ id: string; workspaceId: string | null }> {
  const chat = await selectOwnChat(sqlPoolOf(prisma), { chatId, userId });
  if (!chat) throw new NotFoundError("chat", { chat_id: chatId });
  return chat;
}

export async function getChatWithMessages(db: Db, userId: string, chatId: string): Promise<ChatView & { messages: MessageView[] }> {
  const chat = await db.chat.findFirst({ where: { id: chatId, userId } });
  if (!chat) throw new NotFoundError("chat", { chat_id: chatId });
  // Read by chat, not through a relation: messages have no foreign key to their chat (prisma/schema.prisma).
  const messages = await db.message.findMany({ where: { chatId }, orderBy: { position: "asc" } });
  return {
    id: chat.id,
    title: chat.title,
    workspace_id: chat.workspaceId,
    messages: messages.map((message) => {
      const view: MessageView = { role: message.role, content: message.content };
      if (message.role === "assistant" && Array.isArray(message.toolCalls) && message.toolCalls.length > 0) {
        view.tool_calls = message.toolCalls as unknown as StoredToolCall[];
      }
      if (message.role === "tool" && message.toolCallId) view.tool_call_id = message.toolCallId;
      return view;
    }),
  };
}
