import { z } from "zod";
import { jsonObject, timestamp } from "./common-schemas.ts";
import type { InboxApprovalView, listChatApprovals } from "@agentq/core";
import { pendingApprovalSchema, runStatusSchema, taintSourceSchema } from "./run-schemas.ts";

export const decideApprovalBodySchema = z
  .object({
    tool_approval_id: z.string().min(1).max(300),
    tool_approval_decision: z.enum(["allow_task", "allow_chat", "deny"]),
    arguments: jsonObject().optional().meta({ description: "with an allow: replaces the recorded arguments (policy is checked again)" }),
  })
  .meta({ id: "ApprovalDecisionRequest" });

export const approvalDecisionResultSchema = z.object({ run_id: z.string(), status: runStatusSchema }).meta({ id: "ApprovalDecisionResult" });

/** An approval of a chat, decided or not (GET /api/chats/:id/approvals). */
export const approvalRecordSchema = z
  .object({
    id: z.string(),
    run_id: z.string(),
    tool: z.string(),
    tool_call_id: z.string(),
    arguments: jsonObject(),
    effects: z.array(z.string()),
    status: z.enum(["pending", "allowed", "denied", "cancelled"]),
    decision: z.enum(["allow_task", "allow_chat", "deny"]).nullable(),
    decided_by: z.string().nullable(),
    decided_at: timestamp().nullable(),
    edited: z.boolean(),
    edited_arguments: jsonObject().nullable(),
    created_at: timestamp(),
    expires_at: timestamp(),
    tainted_by: z.array(taintSourceSchema).nullable().meta({ description: "why it paused (see `PendingApproval`); null when not recorded" }),
  })
  .meta({ id: "ApprovalRecord" });

export const approvalRecordListSchema = z.object({ approvals: z.array(approvalRecordSchema) }).meta({ id: "ApprovalRecordList" });

type ApprovalView = Awaited<ReturnType<typeof listChatApprovals>>[number];

/**
 * Core's ApprovalView (chats/chat-permissions.ts) types status and decision as strings and the
 * arguments as unknown; they are the enums and JSON objects of this schema, which
 * test/api-openapi.test.ts checks on real answers.
 */
export function approvalRecordsBody(approvals: ApprovalView[]): z.input<typeof approvalRecordListSchema> {
  return { approvals } as z.input<typeof approvalRecordListSchema>;
}

/** A pending approval in the caller's inbox: `pending_approvals[]` of its run, with where it is. */
export const inboxApprovalSchema = pendingApprovalSchema
  .extend({ chat_id: z.string(), run_id: z.string(), created_at: timestamp() })
  .meta({ id: "InboxApproval" });

export const inboxApprovalListSchema = z
  .object({ approvals: z.array(inboxApprovalSchema).meta({ description: "newest first" }) })
  .meta({ id: "InboxApprovalList" });

export const grantSchema = z
  .object({
    id: z.string(),
    scope: z.enum(["allow_task", "allow_chat"]),
    tool: z.string(),
    effects: z.array(z.string()),
    run_id: z.string().nullable().meta({ description: "the run of an `allow_task` grant; null for `allow_chat`" }),
    approval_id: z.string().nullable(),
    created_at: timestamp(),
  })
  .meta({ id: "Grant" });

export const grantListSchema = z.object({ grants: z.array(grantSchema) }).meta({ id: "GrantList" });

export const revokedGrantSchema = z.object({ id: z.string(), revoked: z.literal(true) }).meta({ id: "RevokedGrant" });

/** Core's InboxApprovalView carries its run view's loose types (see runBody): the schema's are the real ones. */
export function inboxApprovalsBody(approvals: InboxApprovalView[]): z.input<typeof inboxApprovalListSchema> {
  return { approvals } as z.input<typeof inboxApprovalListSchema>;
}
