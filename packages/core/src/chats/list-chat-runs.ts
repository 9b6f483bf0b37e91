import { getRunView } from "../runs/run-queries.ts";
import type { RunView } from "../runs/run-view.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { selectChatRunIds } from "../store/statements/chat-list-statements.ts";
import { requireOwnChat } from "./chat-store.ts";

/**
 * The chat's runs, newest first (at most `limit`), each exactly as GET /api/runs/:id renders it
 * (getRunView, one prepared read per run); someone else's chat is not_found.
 */
export async function listChatRuns(prisma: PrismaClient, userId: string, chatId: string, options: { limit: number }): Promise<RunView[]> {
  const chat = await requireOwnChat(prisma, userId, chatId);
  const runIds = await selectChatRunIds(sqlPoolOf(prisma), { chatId: chat.id, userId, limit: options.limit });
  return Promise.all(runIds.map((runId) => getRunView(prisma, userId, runId)));
}
