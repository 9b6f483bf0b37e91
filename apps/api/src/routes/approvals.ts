import { Router } from "express";
import { z } from "zod";
import { decideRunApproval } from "@agentq/core";
import { commandDependencies, type ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const decisionBody = z.object({
  tool_approval_id: z.string().min(1).max(300),
  tool_approval_decision: z.enum(["allow_task", "allow_chat", "deny"]),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

export function approvalsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { runs } = dependencies;

  router.post("/api/approvals", async (request, response) => {
    const body = parseRequest(decisionBody, request.body);
    const result = await decideRunApproval(
      { ...commandDependencies(dependencies), approvalSecret: runs.approvalSecret, tools: runs.tools },
      { userId: currentUser(request).id, approvalId: body.tool_approval_id, decision: body.tool_approval_decision, arguments: body.arguments },
    );
    response.status(202).json({ run_id: result.runId, status: result.status });
  });

  return router;
}
