import { Router } from "express";
import { z } from "zod";
import { systemClock } from "@agentq/core/clock";
import { generateId } from "@agentq/core/ids";
import { decideApproval } from "@agentq/core/policy/decide-approval";
import type { ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const decisionBody = z.object({
  tool_approval_id: z.string().min(1).max(300),
  tool_approval_decision: z.enum(["allow_task", "allow_chat", "deny"]),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

export function approvalsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma, runs } = dependencies;

  router.post("/api/approvals", async (request, response) => {
    const body = parseRequest(decisionBody, request.body);
    const result = await decideApproval(
      { prisma, clock: systemClock, generateId, approvalSecret: runs.approvalSecret, tools: runs.tools },
      { userId: currentUser(request).id, approvalId: body.tool_approval_id, decision: body.tool_approval_decision, arguments: body.arguments },
    );
    runs.publish(result.runId, result.events);
    // The decision is committed; if Redis is down now, the reconciler enqueues the run later.
    if (result.resume) await runs.schedule(result.runId, result.resume).catch(() => undefined);
    response.status(202).json({ run_id: result.runId, status: result.status });
  });

  return router;
}
