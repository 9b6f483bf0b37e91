import { z } from "zod";
import { decideRunApproval, listPendingApprovals } from "@agentq/core";
import { commandDependencies } from "../api-dependencies.ts";
import { defineRoute } from "../http/api-route.ts";
import { approvalDecisionResultSchema, decideApprovalBodySchema, inboxApprovalsBody, inboxApprovalListSchema } from "../schemas/approval-schemas.ts";

const inboxQuery = z.object({
  status: z
    .enum(["pending"], { message: "only pending approvals are listed: status=pending" })
    .optional()
    .meta({ description: "`pending` (the default; the only value for now)" }),
});

export const approvalRoutes = [
  defineRoute({
    method: "get",
    path: "/api/approvals",
    operationId: "listApprovals",
    summary: "The caller's pending approvals across all chats (an inbox)",
    description: "Newest first; each is its run's `pending_approvals[]` entry with its chat and run.",
    query: inboxQuery,
    responses: { 200: { description: "the pending approvals", schema: inboxApprovalListSchema } },
    handler: async ({ dependencies, user }) => ({ status: 200, body: inboxApprovalsBody(await listPendingApprovals(dependencies.prisma, user.id)) }),
  }),
  defineRoute({
    method: "post",
    path: "/api/approvals",
    operationId: "decideApproval",
    summary: "Decide a pending approval",
    description:
      "`allow_task`: this call and later calls of the same tool with the same effects in this run proceed; `allow_chat`: the same for every " +
      "later run of the chat; `deny`: the call is not executed and the model is told so. The run resumes when its last pending call is decided.",
    body: decideApprovalBodySchema,
    // On the resume path users wait on: the decision's first statement checks the token too.
    verifiesToken: true,
    responses: { 202: { description: "decided; the run's status now", schema: approvalDecisionResultSchema } },
    errors: {
      404: "`not_found`: unknown, forged or someone else's approval id",
      409: "`approval_already_decided`; `run_finished` (cancelled or finished); `approval_stale` (the file it was bound to changed)",
      410: "`approval_expired`",
    },
    handler: async ({ dependencies, caller, admitCaller, body }) => {
      const { runs } = dependencies;
      const result = await decideRunApproval(
        { ...commandDependencies(dependencies), approvalSecret: runs.approvalSecret, tools: runs.tools, commitOnWorker: runs.commitOnWorker },
        { caller, admitCaller, approvalId: body.tool_approval_id, decision: body.tool_approval_decision, arguments: body.arguments },
      );
      return { status: 202, body: { run_id: result.runId, status: result.status } };
    },
  }),
];
