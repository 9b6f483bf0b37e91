import { z } from "zod";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

// Chats (chats/chat-store.ts): created once per conversation and checked on every run's path, in
// plain SQL so that those paths never load Prisma's query compiler.

const chatRow = z.object({ id: z.string(), title: z.string(), workspace_id: z.string().nullable() });

/**
 * Inserts a chat for `userId`, unless `workspaceId` is given and is not that user's workspace: then
 * no row (one statement for the check and the insert).
 */
export async function insertChat(
  runner: SqlRunner,
  input: { id: string; userId: string; title: string; workspaceId: string | null },
): Promise<z.output<typeof chatRow> | undefined> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO chats (id, user_id, workspace_id, title)
     SELECT $1, $2, $3, $4
     WHERE $3::text IS NULL OR EXISTS (SELECT 1 FROM workspaces WHERE id = $3 AND user_id = $2)
     RETURNING id, title, workspace_id`,
    [input.id, input.userId, input.workspaceId, input.title],
    chatRow,
  );
  return row;
}

const ownChatRow = z.object({ id: z.string(), workspaceId: z.string().nullable() });

/** The chat's id and workspace if `userId` owns it (invariant 7); undefined otherwise. */
export async function selectOwnChat(runner: SqlRunner, input: { chatId: string; userId: string }): Promise<z.output<typeof ownChatRow> | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT id, workspace_id AS "workspaceId" FROM chats WHERE id = $1 AND user_id = $2`,
    [input.chatId, input.userId],
    ownChatRow,
  );
  return row;
}
