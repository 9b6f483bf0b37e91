import { z } from "zod";
import { RunStatus } from "../generated/enums.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

// The reads of the web console's lists (chats/chat-lists.ts): a user's chats by activity, a chat's
// runs, a user's pending approvals.

/**
 * A user's chats, most recently active first: a chat's activity is its last run's creation, or its
 * own when it has none. `$2`/`$3` (activity, id) is the last row of the previous page: the page goes
 * on strictly after it, so rows sharing an activity time are neither repeated nor skipped.
 */
const CHATS_BY_ACTIVITY_SQL = preparedSql(
  "chats_by_activity",
  `
SELECT c.id, c.title, c.workspace_id, c.created_at, COALESCE(last_run.created_at, c.created_at) AS activity_at,
  last_run.id AS last_run_id, last_run.status::text AS last_run_status, last_run.created_at AS last_run_created_at
FROM chats AS c
LEFT JOIN LATERAL (
  SELECT r.id, r.status, r.created_at FROM runs AS r WHERE r.chat_id = c.id ORDER BY r.created_at DESC, r.id DESC LIMIT 1
) AS last_run ON true
WHERE c.user_id = $1
  AND ($2::timestamptz IS NULL OR (COALESCE(last_run.created_at, c.created_at), c.id) < ($2::timestamptz, $3::text))
ORDER BY activity_at DESC, c.id DESC
LIMIT $4`,
);

const chatActivityRow = z.object({
  id: z.string(),
  title: z.string(),
  workspace_id: z.string().nullable(),
  created_at: z.date(),
  activity_at: z.date(),
  last_run_id: z.string().nullable(),
  last_run_status: z.enum(RunStatus).nullable(),
  last_run_created_at: z.date().nullable(),
});

export type ChatActivityRow = z.output<typeof chatActivityRow>;

export async function selectChatsByActivity(
  runner: SqlRunner,
  input: { userId: string; after: { activityAt: Date; chatId: string } | null; limit: number },
): Promise<ChatActivityRow[]> {
  return queryParsed(runner, CHATS_BY_ACTIVITY_SQL, [input.userId, input.after?.activityAt ?? null, input.after?.chatId ?? null, input.limit], chatActivityRow);
}

/** The ids of a chat's runs, newest first, if `$2` owns the chat (no row otherwise, and none for a chat without runs). */
const CHAT_RUN_IDS_SQL = preparedSql(
  "chat_run_ids",
  `
SELECT r.id FROM runs AS r
WHERE r.chat_id = $1 AND r.user_id = $2
ORDER BY r.created_at DESC, r.id DESC
LIMIT $3`,
);

export async function selectChatRunIds(runner: SqlRunner, input: { chatId: string; userId: string; limit: number }): Promise<string[]> {
  const rows = await queryParsed(runner, CHAT_RUN_IDS_SQL, [input.chatId, input.userId, input.limit], z.object({ id: z.string() }));
  return rows.map((row) => row.id);
}

/** A user's pending approvals, newest first (the run's owner is the approval's user: both are checked). */
const PENDING_APPROVALS_SQL = preparedSql(
  "pending_approvals_of_user",
  `
SELECT a.id, a.run_id, a.chat_id, a.created_at
FROM approvals AS a JOIN runs AS r ON r.id = a.run_id
WHERE a.user_id = $1 AND r.user_id = $1 AND a.status = 'pending'
ORDER BY a.created_at DESC, a.id
LIMIT $2`,
);

const pendingApprovalRow = z.object({ id: z.string(), run_id: z.string(), chat_id: z.string(), created_at: z.date() });

export async function selectPendingApprovalsOfUser(
  runner: SqlRunner,
  input: { userId: string; limit: number },
): Promise<z.output<typeof pendingApprovalRow>[]> {
  return queryParsed(runner, PENDING_APPROVALS_SQL, [input.userId, input.limit], pendingApprovalRow);
}
