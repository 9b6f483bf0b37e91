import { decideRunApproval } from "@agentq/core";
import { commandDependencies } from "../api-dependencies.ts";
import { defineRoute } from "../http/api-route.ts";
import { approvalDecisionResultSchema, decideApprovalBodySchema } from "../schemas/approval-schemas.ts";

export const approvalRoutes = [
  defineRoute({
    method: "post",
    path: "/api/approvals",
    operationId: "decideApproval",
    summary: "Decide a pending approval",
    description:
      "`allow_task`: this call and later calls of the same tool with the same effects in this run proceed; `allow_chat`: the same for every " +
      "later run of the chat; `deny`: the call is not executed and the model is told so. The run resumes when its last pending call is decided.",
    body: decideApprovalBodySchema,
    responses: { 202: { description: "decided; the run's status now", schema: approvalDecisionResultSchema } },
    errors: {
      404: "`not_found`: unknown, forged or someone else's approval id",
      409: "`approval_already_decided`; `run_finished` (cancelled or finished); `approval_stale` (the file it was bound to changed)",
      410: "`approval_expired`",
    },
    handler: async ({ dependencies, user, body }) => {
      const { runs } = dependencies;
      const result = await decideRunApproval(
        { ...commandDependencies(dependencies), approvalSecret: runs.approvalSecret, tools: runs.tools },
        { userId: user.id, approvalId: body.tool_approval_id, decision: body.tool_approval_decision, arguments: body.arguments },
      );
      return { status: 202, body: { run_id: result.runId, status: result.status } };
    },
  }),
];
