import { z } from "zod";
import { jsonObject, timestamp } from "./common-schemas.ts";
import { runStatusSchema } from "./run-schemas.ts";

export const chatSchema = z.object({ id: z.string(), title: z.string(), workspace_id: z.string().nullable() }).meta({ id: "Chat" });

/** API.md `Message`: every assistant `tool_calls[].id` is answered by exactly one `tool` message. */
export const messageSchema = z
  .object({
    role: z.enum(["user", "assistant", "tool"]),
    content: z.string().nullable(),
    tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: jsonObject() })).optional(),
    tool_call_id: z.string().optional(),
  })
  .meta({ id: "Message" });

export const chatWithMessagesSchema = chatSchema.extend({ messages: z.array(messageSchema) }).meta({ id: "ChatWithMessages" });

export const createChatBodySchema = z
  .object({
    title: z.string().trim().min(1).max(500).optional().meta({ description: "default `New chat`" }),
    workspace_id: z.string().min(1).max(200).optional(),
  })
  .meta({ id: "CreateChatRequest" });

export const chatSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    workspace_id: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp().meta({ description: "the creation of the chat's last run, or of the chat" }),
    last_run: z.object({ id: z.string(), status: runStatusSchema, created_at: timestamp() }).nullable(),
  })
  .meta({ id: "ChatSummary" });

export const chatListSchema = z
  .object({
    chats: z.array(chatSummarySchema).meta({ description: "most recently active first" }),
    next_before: z.string().nullable().meta({ description: "pass as `before` for the next page; null on the last page" }),
  })
  .meta({ id: "ChatList" });
