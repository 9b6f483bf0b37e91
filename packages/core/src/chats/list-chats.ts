import { encodeTimeCursor, parseTimeCursor } from "../lists/time-cursor.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { type ChatActivityRow, selectChatsByActivity } from "../store/statements/chat-list-statements.ts";
import type { RunStatus } from "../runs/run-status.ts";

/** A chat in the caller's list (GET /api/chats). */
export interface ChatSummaryView {
  id: string;
  title: string;
  workspace_id: string | null;
  created_at: string;
  /** The creation of the chat's last run, or of the chat: what the list is ordered by. */
  updated_at: string;
  last_run: { id: string; status: RunStatus; created_at: string } | null;
}

export interface ChatPage {
  chats: ChatSummaryView[];
  /** The cursor of the next page (`before`); null on the last one. */
  next_before: string | null;
}

/**
 * The user's chats, most recently active first, `limit` at a time. `before` is the `next_before`
 * of the previous page: an opaque cursor naming the last chat listed (its activity time and id),
 * so chats that become active meanwhile do not shift the pages that follow.
 */
export async function listChats(prisma: PrismaClient, userId: string, options: { limit: number; before?: string | undefined }): Promise<ChatPage> {
  const cursor = options.before === undefined ? null : parseTimeCursor(options.before);
  const after = cursor === null ? null : { activityAt: cursor.at, chatId: cursor.id };
  const rows = await selectChatsByActivity(sqlPoolOf(prisma), { userId, after, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    chats: page.map(toChatSummary),
    next_before: rows.length > options.limit && last !== undefined ? encodeTimeCursor(last.activity_at, last.id) : null,
  };
}

function toChatSummary(row: ChatActivityRow): ChatSummaryView {
  return {
    id: row.id,
    title: row.title,
    workspace_id: row.workspace_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.activity_at.toISOString(),
    last_run:
      row.last_run_id !== null && row.last_run_status !== null && row.last_run_created_at !== null
        ? { id: row.last_run_id, status: row.last_run_status, created_at: row.last_run_created_at.toISOString() }
        : null,
  };
}
