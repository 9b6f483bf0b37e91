import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import { parseTaintSources, type TaintSource } from "../policy/taint-sources.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import { requireOwnChat } from "./chat-store.ts";

/** A standing permission as the API shows it (GET /api/chats/:id/grants). */
export interface GrantView {
  id: string;
  scope: "allow_task" | "allow_chat";
  tool: string;
  effects: string[];
  run_id: string | null;
  approval_id: string | null;
  created_at: string;
}

/** An approval of the chat, decided or not, as the API shows it (GET /api/chats/:id/approvals). */
export interface ApprovalView {
  id: string;
  run_id: string;
  tool: string;
  tool_call_id: string;
  arguments: unknown;
  effects: string[];
  status: string;
  decision: string | null;
  decided_by: string | null;
  decided_at: string | null;
  edited: boolean;
  edited_arguments: unknown;
  created_at: string;
  expires_at: string;
  /** Why the call paused: the calls that had tainted the run, earliest first (null: recorded before this was). */
  tainted_by: TaintSource[] | null;
}

/** The chat's grants in force, oldest first; someone else's chat is not_found. */
export async function listChatGrants(prisma: PrismaClient, userId: string, chatId: string): Promise<GrantView[]> {
  const chat = await requireOwnChat(prisma, userId, chatId);
  const grants = await prisma.grant.findMany({ where: { chatId: chat.id, revokedAt: null }, orderBy: { createdAt: "asc" } });
  return grants.map((grant) => ({
    id: grant.id,
    scope: grant.scope === "task" ? "allow_task" : "allow_chat",
    tool: grant.tool,
    effects: grant.effects,
    run_id: grant.runId,
    approval_id: grant.approvalId,
    created_at: grant.createdAt.toISOString(),
  }));
}

/** Revokes one grant of the chat; a grant that is not the chat's, or already revoked, is not_found. */
export async function revokeChatGrant(
  dependencies: { prisma: PrismaClient; clock: Clock },
  input: { userId: string; chatId: string; grantId: string },
): Promise<void> {
  const chat = await requireOwnChat(dependencies.prisma, input.userId, input.chatId);
  const revoked = await dependencies.prisma.grant.updateMany({
    where: { id: input.grantId, chatId: chat.id, revokedAt: null },
    data: { revokedAt: dependencies.clock() },
  });
  if (revoked.count === 0) throw new NotFoundError("grant", { grant_id: input.grantId });
}

/** Every approval of the chat, oldest first; someone else's chat is not_found. */
export async function listChatApprovals(prisma: PrismaClient, userId: string, chatId: string): Promise<ApprovalView[]> {
  const chat = await requireOwnChat(prisma, userId, chatId);
  const approvals = await prisma.approval.findMany({ where: { chatId: chat.id }, orderBy: { createdAt: "asc" } });
  return approvals.map((approval) => ({
    id: approval.id,
    run_id: approval.runId,
    tool: approval.tool,
    tool_call_id: approval.toolCallId,
    arguments: approval.arguments,
    effects: approval.effects,
    status: approval.status,
    decision: approval.decision,
    decided_by: approval.decidedBy,
    decided_at: approval.decidedAt?.toISOString() ?? null,
    edited: approval.editedArguments !== null,
    edited_arguments: approval.editedArguments,
    created_at: approval.createdAt.toISOString(),
    expires_at: approval.expiresAt.toISOString(),
    tainted_by: parseTaintSources(approval.taintedBy),
  }));
}
