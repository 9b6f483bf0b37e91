import { auditEntryRow } from "../audit/record-audit-entry.ts";
import { emailContentRevision } from "../email/email-revision.ts";
import type { Clock } from "../clock.ts";
import { AgentqError, ConflictError, InvalidRequestError, NotFoundError } from "../errors/agentq-error.ts";
import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { RunFinishedError, RunStateConflictError } from "./run-errors.ts";
import { isTerminal, RunStatus } from "./run-status.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { lockRunOfApproval, selectApprovalForDecision } from "../store/statements/approval-statements.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { workspaceFileRevision } from "../workspaces/workspace-files.ts";
import { isApprovalIntact } from "../policy/approval-seal.ts";
import { WORKER_PRESENCE_TIMEOUT_MS } from "../services/load-service-status.ts";

export type ApprovalDecisionKind = "allow_task" | "allow_chat" | "deny";

export class ApprovalAlreadyDecidedError extends ConflictError {
  constructor(approvalId: string) {
    super("approval_already_decided", "this approval has already been decided", { approval_id: approvalId });
  }
}

export class ApprovalExpiredError extends AgentqError {
  constructor(approvalId: string, expiredAt: Date) {
    super("approval_expired", "this approval expired; the run stays paused until it is cancelled", {
      approval_id: approvalId,
      expired_at: expiredAt.toISOString(),
    });
  }
}

export class ApprovalStaleError extends ConflictError {
  constructor(approvalId: string, path: string, details?: Record<string, unknown>) {
    super("approval_stale", `${path} changed after the call was proposed; the approval no longer describes what would run`, {
      approval_id: approvalId,
      ...(details ?? { path }),
    });
  }
}

export interface DecideApprovalInput {
  userId: string;
  approvalId: string;
  decision: ApprovalDecisionKind;
  /** With an allow decision: replaces the recorded arguments (checked against the tool's schema). */
  arguments?: Record<string, unknown> | undefined;
}

export interface DecideApprovalDependencies {
  prisma: PrismaClient;
  clock: Clock;
  generateId: GenerateId;
  approvalSecret: string;
  tools: { get(name: string): ToolDefinition | undefined };
}

export interface DecideApprovalResult {
  runId: string;
  status: RunStatus;
  events: RunEventRecord[];
  /**
   * The last pending approval was decided: hand the run to a worker with this generation; `worker`: a
   * live worker with free slots to offer it to first (null: none seen, enqueue it).
   */
  resume: { lastEventSeq: number; leaseVersion: number; worker: string | null } | null;
}

/**
 * A human's decision on a paused call (API.md, "Approvals"). In one transaction: the record's owner,
 * seal, expiry and bound file revision are checked, the approval is consumed with a conditional
 * update (exactly one concurrent decision wins, invariant 5), a grant is stored for allow_task /
 * allow_chat (deciding the run's other pending approvals it covers), and when nothing is pending any
 * more the run becomes queued again. The worker that resumes it re-checks policy where the call runs.
 *
 * Plain SQL over the Prisma client's pool (store/statements/approval-statements.ts): this is on the
 * resume path users wait on (issue 4's latency budget). Five round trips where Prisma's interactive
 * transaction took twelve: begin, lock, read, one statement for the approvals, the grant, the run,
 * its events and the audit entry (store/run-statement.ts), commit.
 */
export async function decideApproval(dependencies: DecideApprovalDependencies, input: DecideApprovalInput): Promise<DecideApprovalResult> {
  const now = dependencies.clock();
  return inSqlTransaction(
    sqlPoolOf(dependencies.prisma),
    async (client) => {
      // Decisions on one run are serialized on the run's row: two users deciding the last two
      // approvals at once would otherwise each count the other's as still pending, and neither would
      // resume the run. Cancel takes the same lock first too. A replayed click waits its turn here
      // (milliseconds) and is then answered "already decided" below.
      const locked = await lockRunOfApproval(client, {
        approvalId: input.approvalId,
        userId: input.userId,
        workerSeenSeconds: WORKER_PRESENCE_TIMEOUT_MS / 1000,
      });
      if (!locked) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
      const allow = input.decision !== "deny";
      // Only an allow needs the file to be as proposed; a deny runs nothing, and refusing it would
      // leave the run parked with no way to say no but a cancel. Used only once the seal verifies.
      const currentRevision =
        allow && locked.target_path && locked.root_path ? workspaceFileRevision(locked.root_path, locked.target_path).catch(() => null) : undefined;
      // Read in a statement of its own, after the lock: see store/statements/approval-statements.ts.
      const approval = await selectApprovalForDecision(client, { runId: locked.id, approvalId: input.approvalId });
      if (!approval) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
      // A decided approval stays "already decided" after its run finishes: a replayed click must not
      // read as if the run had been cancelled under it.
      if (isDecided(approval.status)) throw new ApprovalAlreadyDecidedError(approval.id);
      if (isTerminal(approval.runStatus) || approval.status !== "pending") throw new RunFinishedError(approval.runId);
      if (approval.runStatus !== RunStatus.awaiting_approval)
        throw new RunStateConflictError(approval.runId, "the run changed state meanwhile; fetch it again");
      // A record altered in the database is treated like a forged id.
      if (!isApprovalIntact(dependencies.approvalSecret, approval)) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
      if (approval.expiresAt.getTime() <= now.getTime()) throw new ApprovalExpiredError(approval.id, approval.expiresAt);
      if (currentRevision !== undefined && approval.targetPath && (await currentRevision) !== approval.targetRevision) {
        throw new ApprovalStaleError(approval.id, approval.targetPath);
      }
      // A call bound to a document: its revision, read with the lock, must still be the one proposed.
      if (allow && approval.targetDocumentId && String(locked.document_revision) !== approval.targetRevision) {
        throw new ApprovalStaleError(approval.id, `document ${approval.targetDocumentId}`, {
          document_id: approval.targetDocumentId,
          current_revision: locked.document_revision,
        });
      }
      // A send bound to an email: its recipients, subject and body, read with the lock, must be the ones proposed.
      if (allow && approval.targetEmailId && (locked.email ? emailContentRevision(locked.email) : null) !== approval.targetRevision) {
        throw new ApprovalStaleError(approval.id, `email ${approval.targetEmailId}`, { email_id: approval.targetEmailId });
      }
      let editedArguments: Record<string, unknown> | undefined;
      if (allow && input.arguments !== undefined) {
        const tool = dependencies.tools.get(approval.tool);
        const validated = tool ? validateToolArguments(tool, input.arguments) : { ok: true as const, args: input.arguments };
        if (!validated.ok) throw new InvalidRequestError(`the edited arguments do not fit the tool: ${validated.error}`, { field: "arguments" });
        editedArguments = input.arguments;
      }
      // Under the run's lock nothing else decides this run's approvals: what was read is current.
      const covered = allow ? approval.sameToolPending.filter((other) => sameEffects(other.effects, approval.effects)) : [];
      const stillPending = approval.pendingCount - 1 - covered.length;
      const decidedEvents: NewRunEvent[] = [
        decidedEvent(approval.id, approval.tool, approval.toolCallId, input, editedArguments !== undefined),
        ...covered.map((other) => decidedEvent(other.id, approval.tool, other.toolCallId, input, false, approval.id)),
      ];

      const change = emptyStatementChange(approval.runId, approval.leaseVersion);
      change.events.push(...decidedEvents);
      const status: "allowed" | "denied" = allow ? "allowed" : "denied";
      change.approvalDecisions.push(
        { id: approval.id, status, decision: input.decision, decidedBy: input.userId, ...(editedArguments !== undefined ? { editedArguments } : {}) },
        ...covered.map((other) => ({ id: other.id, status, decision: input.decision, decidedBy: input.userId })),
      );
      if (allow) {
        change.grants.push({
          id: dependencies.generateId("grant"),
          userId: input.userId,
          scope: input.decision === "allow_task" ? "task" : "chat",
          tool: approval.tool,
          effects: approval.effects,
          approvalId: approval.id,
        });
      }
      if (stillPending === 0) change.status = RunStatus.queued;
      // Written by the commit statement, with the decision it records; rolled back with it below.
      change.auditEntry = auditEntryRow(
        {
          actorId: input.userId,
          action: "approval.decided",
          target: `approval:${approval.id}`,
          details: {
            run_id: approval.runId,
            tool: approval.tool,
            decision: input.decision,
            edited_arguments: editedArguments !== undefined,
            covered_approvals: covered.map((other) => other.id),
          },
        },
        { generateId: dependencies.generateId },
      );
      // The run's lock is held, so its lease version cannot have moved since it was read.
      const committed = await commitRunStatement(client, change, now);
      if (!committed) throw new RunStateConflictError(approval.runId, "the run changed state meanwhile; fetch it again");
      // The consumption is conditional (still pending): exactly one of concurrent decisions wins.
      if (committed.approvalsDecided !== 1 + covered.length) throw new ApprovalAlreadyDecidedError(approval.id);
      return {
        runId: approval.runId,
        status: committed.run.status,
        events: committed.events,
        resume: stillPending === 0 ? { lastEventSeq: committed.run.lastEventSeq, leaseVersion: committed.run.leaseVersion, worker: locked.offer_worker } : null,
      };
    },
    { lockTimeoutMs: DECISION_LOCK_TIMEOUT_MS },
  );
}

/**
 * A burst of clicks on one run queues on its lock; waiting longer beats an error, and only a stuck
 * transaction makes a decision wait this long.
 */
const DECISION_LOCK_TIMEOUT_MS = 10_000;

function isDecided(status: string): boolean {
  return status === "allowed" || status === "denied";
}

function decidedEvent(approvalId: string, tool: string, toolCallId: string, input: DecideApprovalInput, edited: boolean, coveredBy?: string): NewRunEvent {
  return {
    type: "approval.decided",
    data: {
      approval_id: approvalId,
      tool,
      tool_call_id: toolCallId,
      decision: input.decision,
      decided_by: input.userId,
      edited,
      ...(coveredBy ? { covered_by: coveredBy } : {}),
    },
  };
}

function sameEffects(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((effect) => b.includes(effect));
}
