import { type AgentqClient, type Schemas, unwrap } from "./create-agentq-client.ts";

export type Run = Schemas["Run"];
export type ApprovalDecision = "allow_task" | "allow_chat" | "deny";

/** Terminal run statuses: the run will not change any more. */
export const FINISHED_STATUSES = ["completed", "failed", "cancelled"] as const;

/**
 * Polls GET /api/runs/:id until its status is one of `statuses` (default: finished) and answers the
 * run. For watching a run as it happens, followRun streams its events instead.
 */
export async function waitForRunStatus(
  client: AgentqClient,
  runId: string,
  options: { statuses?: readonly string[]; timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<Run> {
  const statuses = options.statuses ?? FINISHED_STATUSES;
  const deadline = Date.now() + (options.timeoutMs ?? 5 * 60_000);
  for (;;) {
    const run = await unwrap(client.GET("/api/runs/{id}", { params: { path: { id: runId } }, signal: options.signal }));
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is still ${run.status} after ${options.timeoutMs ?? 300_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
}

/** Decides a pending approval; `arguments` (with an allow) replaces the call's arguments. Answers the run's id and status. */
export async function decideApproval(
  client: AgentqClient,
  approvalId: string,
  decision: ApprovalDecision,
  options: { arguments?: Record<string, unknown> } = {},
): Promise<Schemas["ApprovalDecisionResult"]> {
  return unwrap(
    client.POST("/api/approvals", {
      body: { tool_approval_id: approvalId, tool_approval_decision: decision, ...(options.arguments ? { arguments: options.arguments } : {}) },
    }),
  );
}
