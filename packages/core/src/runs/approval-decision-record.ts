import { z } from "zod";
import { auditEntryRow } from "../audit/record-audit-entry.ts";
import type { RunStatementChange } from "../store/run-statement.ts";
import type { ResumeHandover } from "./resume-handover.ts";
import type { RunGeneration } from "./run-loop-dependencies.ts";
import type { RunStatus } from "./run-status.ts";

/**
 * A decision on a paused call as its request worked it out from its read (decide-approval.ts): what
 * its commit records, in data, so that whoever commits it (the deciding API instance, or the worker the
 * run is handed to, in its first commit) writes the same rows. Checked with `approvalDecisionRecord`
 * where it crosses a process.
 */
export const approvalDecisionRecord = z
  .object({
    runId: z.string().min(1).max(200),
    /** The run's last event seq as the decision read it: its commit's fence (nothing committed to the run since). */
    lastEventSeq: z.number().int().min(0),
    decision: z.enum(["allow_task", "allow_chat", "deny"]),
    decidedBy: z.string().min(1).max(200),
    tool: z.string().min(1).max(200),
    effects: z.array(z.string().max(64)).max(16),
    /** The approval decided, then the run's other pending approvals its grant covers (same tool, same effects). */
    approvals: z
      .array(z.object({ id: z.string().min(1).max(200), toolCallId: z.string().min(1).max(200) }).strict())
      .min(1)
      .max(1000),
    /** With an allow: the arguments the user edited, replacing the recorded ones of the approval decided. */
    editedArguments: z.record(z.string(), z.unknown()).optional(),
    /** The grant an allow stores (null: a deny). */
    grantId: z.string().min(1).max(200).nullable(),
    auditEntryId: z.string().min(1).max(200),
  })
  .strict();

export type ApprovalDecisionRecord = z.infer<typeof approvalDecisionRecord>;

/**
 * The decision of a run's last pending approval, uncommitted, for the worker the run is handed to
 * (DecideApprovalDependencies.commitOnWorker): its first commit of the run records it.
 */
export interface WorkerDecisionRequest {
  worker: string;
  /** The run's as the decision read it: the first commit's fence. */
  generation: RunGeneration;
  handover: ResumeHandover;
  record: ApprovalDecisionRecord;
}

/**
 * What became of a decision left to a worker: `committed` (its first commit of the run recorded the
 * decision, consuming this many approvals; the run's status after it), `refused` (the fence refused that
 * commit: the run changed since the decision read it, nothing written), `declined` (nothing was sent to
 * Postgres: the worker had no free slot, was stopping, or none heard the offer), `unknown` (the commit
 * failed or its answer did not come back: it may have landed).
 */
export type DecisionCommitOutcome =
  | { kind: "committed"; approvalsDecided: number; status: RunStatus }
  | { kind: "refused" }
  | { kind: "declined" }
  | { kind: "unknown" };

/** The status the decided approvals take. */
export function decidedStatus(record: ApprovalDecisionRecord): "allowed" | "denied" {
  return record.decision === "deny" ? "denied" : "allowed";
}

/**
 * Stages the decision into `change`: fenced by the run's last event seq as read, its events (one
 * `approval.decided` per approval, the covered ones naming the one decided), the approvals' new
 * status (applied only to approvals still pending: the commit reports how many it took), the grant
 * of an allow and the audit entry. The run's status and lease are left to the caller.
 */
export function stageApprovalDecision(change: RunStatementChange, record: ApprovalDecisionRecord): void {
  const [decided, ...covered] = record.approvals;
  if (!decided) throw new Error("a decision decides at least one approval");
  const status = decidedStatus(record);
  const edited = record.editedArguments !== undefined;
  change.expectedLastEventSeq = record.lastEventSeq;
  for (const approval of record.approvals) {
    const coveredBy = approval === decided ? undefined : decided.id;
    change.events.push({
      type: "approval.decided",
      data: {
        approval_id: approval.id,
        tool: record.tool,
        tool_call_id: approval.toolCallId,
        decision: record.decision,
        decided_by: record.decidedBy,
        edited: coveredBy === undefined && edited,
        ...(coveredBy ? { covered_by: coveredBy } : {}),
      },
    });
    change.approvalDecisions.push({
      id: approval.id,
      status,
      decision: record.decision,
      decidedBy: record.decidedBy,
      ...(coveredBy === undefined && record.editedArguments !== undefined ? { editedArguments: record.editedArguments } : {}),
    });
  }
  if (record.grantId !== null) {
    change.grants.push({
      id: record.grantId,
      userId: record.decidedBy,
      scope: record.decision === "allow_chat" ? "chat" : "task",
      tool: record.tool,
      effects: record.effects,
      approvalId: decided.id,
    });
  }
  change.auditEntry = auditEntryRow(
    {
      actorId: record.decidedBy,
      action: "approval.decided",
      target: `approval:${decided.id}`,
      details: {
        run_id: record.runId,
        tool: record.tool,
        decision: record.decision,
        edited_arguments: edited,
        covered_approvals: covered.map((approval) => approval.id),
      },
    },
    { generateId: () => record.auditEntryId },
  );
}
