import { generateSecretId } from "../../ids.ts";
import { inSpan } from "../../telemetry/in-span.ts";
import { SpanName, TraceAttribute } from "../../telemetry/trace-attributes.ts";
import { POLICY_VERSION, hashArguments, sealApproval } from "../../policy/approval-seal.ts";
import type { PauseReason } from "../../policy/decide-tool-call.ts";
import type { TaintSource } from "../../policy/taint-sources.ts";
import { sqlPoolOf } from "../../store/create-prisma-client.ts";
import { stageToolCallUpdate } from "../../store/run-statement.ts";
import { selectDocumentCurrentRevision } from "../../store/statements/document-statements.ts";
import { type EmailRecord, selectOwnEmail } from "../../store/statements/email-statements.ts";
import { type EmailContent, emailApprovalPreview, emailContentRevision } from "../../email/email-revision.ts";
import type { ToolDefinition } from "../../tools/tool-definition.ts";
import { workspaceFileRevision } from "../../workspaces/workspace-files.ts";
import type { StepOutcome } from "../run-outcome.ts";
import { RunStatus } from "../run-status.ts";
import type { PendingCall } from "./pending-call.ts";
import type { RunExecution } from "./run-execution.ts";

/** A call that policy paused, with the arguments it would run with. */
export interface ApprovalRequest {
  call: PendingCall;
  tool: ToolDefinition;
  args: unknown;
  effects: string[];
  reason: PauseReason;
}

export interface ParkOptions {
  /** Why the calls paused: the calls that had tainted the run when their round began (empty: not for taint). */
  taintedBy: readonly TaintSource[];
}

/**
 * Writes a sealed approval record per call and parks the run: no worker, no job (invariant 4). The
 * record binds the revision of the file the call targets, so a decision can tell if it changed, and
 * names the calls that tainted the run (not sealed: it explains the pause, it decides nothing).
 */
export function parkForApproval(execution: RunExecution, requests: readonly ApprovalRequest[], options: ParkOptions): Promise<StepOutcome> {
  const attributes = () => ({
    [TraceAttribute.runId]: execution.context.run.id,
    [TraceAttribute.approvalTools]: requests.map((request) => request.call.name),
    [TraceAttribute.approvalReasons]: requests.map((request) => request.reason),
  });
  return inSpan(SpanName.approvalPause, attributes, async (span) => {
    const step = await writeApprovalsAndPark(execution, requests, options);
    if (step.kind === "stop" && step.outcome !== "cancel" && step.outcome.kind === "parked")
      span.setAttribute(TraceAttribute.approvalIds, step.outcome.approvalIds);
    return step;
  });
}

async function writeApprovalsAndPark(execution: RunExecution, requests: readonly ApprovalRequest[], options: ParkOptions): Promise<StepOutcome> {
  const { run, workspace, settings } = execution.context;
  const now = execution.dependencies.clock();
  const expiresAt = new Date(now.getTime() + settings.approval_ttl_seconds * 1000);
  const records = await Promise.all(
    requests.map(async (request) => {
      const targetPath = request.tool.targetPath?.(request.args) ?? null;
      const targetDocumentId = request.tool.targetDocument?.(request.args) ?? null;
      const targetEmailId = request.tool.targetEmail?.(request.args) ?? null;
      const email = targetEmailId ? await emailNow(execution, targetEmailId) : undefined;
      const targetRevision = await boundRevision(execution, { targetDocumentId, targetEmailId, email, targetPath });
      const fields = {
        id: (execution.dependencies.generateSecretId ?? generateSecretId)("apr"),
        runId: run.id,
        chatId: run.chatId,
        userId: run.userId,
        toolCallId: request.call.callId,
        tool: request.call.name,
        argumentsHash: hashArguments(request.args),
        workspaceId: workspace?.id ?? null,
        effects: request.effects,
        targetPath,
        targetRevision,
        ...(targetDocumentId ? { targetDocumentId } : {}),
        ...(targetEmailId ? { targetEmailId } : {}),
        policyVersion: POLICY_VERSION,
        expiresAt,
      };
      return { request, fields, email, seal: sealApproval(execution.dependencies.approvalSecret, fields) };
    }),
  );
  // One statement with whatever the round staged (often the calls' own rows): the approval
  // records, the calls marked as waiting, the status and the released lease commit together.
  execution.stage((change) => {
    change.status = RunStatus.awaiting_approval;
    change.releaseLease = true;
    for (const { request, fields, email, seal } of records) {
      change.events.push({
        type: "approval.required",
        data: {
          approval_id: fields.id,
          tool: fields.tool,
          tool_call_id: fields.toolCallId,
          arguments: request.args,
          effects: fields.effects,
          expires_at: expiresAt.toISOString(),
          tainted_by: [...options.taintedBy],
          reason: request.reason,
          // What a send would send, for the person deciding (the approval binds exactly this).
          ...(email ? { email: emailApprovalPreview(email) } : {}),
        },
      });
      stageToolCallUpdate(change, { id: request.call.rowId, status: "awaiting_approval", effects: fields.effects });
      change.approvals.push({
        ...fields,
        toolCallRowId: request.call.rowId,
        arguments: request.args,
        seal,
        taintedBy: options.taintedBy,
        pauseReason: request.reason,
      });
    }
  });
  await execution.flush();
  return { kind: "stop", outcome: { kind: "parked", approvalIds: records.map(({ fields }) => fields.id) } };
}

/**
 * What an approval's target_revision binds: the revision of the document the call changes, the hash of
 * the email it sends, else the revision of the workspace file it targets (null: none of these).
 */
async function boundRevision(
  execution: RunExecution,
  target: { targetDocumentId: string | null; targetEmailId: string | null; email: EmailContent | undefined; targetPath: string | null },
): Promise<string | null> {
  if (target.targetDocumentId) return documentRevisionNow(execution, target.targetDocumentId);
  if (target.targetEmailId) return target.email ? emailContentRevision(target.email) : null;
  const { workspace } = execution.context;
  if (!workspace || !target.targetPath) return null;
  return workspaceFileRevision(workspace.rootPath, target.targetPath).catch(() => null);
}

/** The run's user's email (undefined: no such email of theirs). */
function emailNow(execution: RunExecution, emailId: string): Promise<EmailRecord | undefined> {
  return selectOwnEmail(sqlPoolOf(execution.dependencies.prisma), { userId: execution.context.run.userId, emailId });
}

/** The current content revision of the run's user's email (null: no such email of theirs). */
export async function emailRevisionNow(execution: RunExecution, emailId: string): Promise<string | null> {
  const email = await emailNow(execution, emailId);
  return email ? emailContentRevision(email) : null;
}

/** The current revision of the run's user's document, as text (null: no such document of theirs). */
export async function documentRevisionNow(execution: RunExecution, documentId: string): Promise<string | null> {
  const revision = await selectDocumentCurrentRevision(sqlPoolOf(execution.dependencies.prisma), { id: documentId, userId: execution.context.run.userId });
  return revision === undefined ? null : String(revision);
}

/** Some approvals of the run are still undecided: park again without asking twice. */
export async function reparkForApproval(execution: RunExecution): Promise<StepOutcome> {
  execution.stage((change) => {
    change.status = RunStatus.awaiting_approval;
    change.releaseLease = true;
  });
  await execution.flush();
  const pending = execution.context.openToolCalls.flatMap((call) => (call.approval?.status === "pending" ? [call.approval.id] : []));
  return { kind: "stop", outcome: { kind: "parked", approvalIds: pending } };
}
