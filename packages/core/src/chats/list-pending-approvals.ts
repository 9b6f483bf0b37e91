import { getRunView } from "../runs/run-queries.ts";
import type { RunView } from "../runs/run-view.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { selectPendingApprovalsOfUser } from "../store/statements/chat-list-statements.ts";

/** A pending approval in the user's inbox: its run's `pending_approvals[]` entry, and where it is. */
export type InboxApprovalView = RunView["pending_approvals"][number] & { chat_id: string; run_id: string; created_at: string };

/** Pending approvals listed at most: far more than anyone decides by hand; the rest show as these are decided. Default 500. */
const INBOX_LIMIT = 500;

/**
 * The user's pending approvals across all chats, newest first (those of one round, which share
 * their creation, in the order of their calls). Each carries exactly the fields its run's
 * `pending_approvals[]` shows (rendered by getRunView), plus its chat, run and creation.
 */
export async function listPendingApprovals(prisma: PrismaClient, userId: string): Promise<InboxApprovalView[]> {
  const rows = await selectPendingApprovalsOfUser(sqlPoolOf(prisma), { userId, limit: INBOX_LIMIT });
  const runIds = [...new Set(rows.map((row) => row.run_id))];
  const views = await Promise.all(runIds.map((runId) => getRunView(prisma, userId, runId)));
  const shown = new Map<string, { view: RunView["pending_approvals"][number]; position: number }>();
  for (const view of views) {
    for (const [position, approval] of view.pending_approvals.entries()) shown.set(approval.id, { view: approval, position });
  }
  const listed: (InboxApprovalView & { position: number; createdAt: number })[] = [];
  for (const row of rows) {
    // Decided between the two reads: no longer pending, so not listed.
    const found = shown.get(row.id);
    if (found === undefined) continue;
    const createdAt = row.created_at.getTime();
    listed.push({ ...found.view, chat_id: row.chat_id, run_id: row.run_id, created_at: row.created_at.toISOString(), position: found.position, createdAt });
  }
  listed.sort((left, right) => right.createdAt - left.createdAt || compareRuns(left.run_id, right.run_id) || left.position - right.position);
  return listed.map(({ position: _position, createdAt: _createdAt, ...approval }) => approval);
}

function compareRuns(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
