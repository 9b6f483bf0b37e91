import type { Clock } from "../clock.ts";
import { AgentqError, ConflictError, InvalidRequestError, NotFoundError } from "../errors/agentq-error.ts";
import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { RunFinishedError, RunStateConflictError } from "./run-errors.ts";
import { isTerminal, RunStatus } from "./run-status.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import { inSqlTransaction, preparedSql, queryRows } from "../store/sql-pool.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { workspaceFileRevision } from "../workspaces/workspace-files.ts";
import { isApprovalIntact, type StoredApproval } from "../policy/approval-seal.ts";

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
  constructor(approvalId: string, path: string) {
    super("approval_stale", `${path} changed after the call was proposed; the approval no longer describes what would run`, { approval_id: approvalId, path });
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
  /** The last pending approval was decided: hand the run to a worker with this generation. */
  resume: { lastEventSeq: number; leaseVersion: number } | null;
}

interface LockedApproval extends StoredApproval {
  status: string;
  editedArguments: unknown;
  runStatus: RunStatus;
  leaseVersion: number;
  /** The run's pending approvals, this one included. */
  pendingCount: number;
  /** The run's other pending approvals of the same tool: a grant from this decision may cover them. */
  sameToolPending: { id: string; toolCallId: string; effects: string[] }[];
}

/**
 * The run of the caller's approval, locked (no row: not the caller's approval, or none at all),
 * with the file the call is bound to: its revision is computed while the approval is read.
 */
const LOCK_SQL = preparedSql(
  "approval_lock_run",
  `SELECT r.id, a.target_path, w.root_path
FROM approvals AS a
JOIN runs AS r ON r.id = a.run_id
JOIN chats AS c ON c.id = r.chat_id
LEFT JOIN workspaces AS w ON w.id = c.workspace_id
WHERE a.id = $1 AND a.user_id = $2
FOR UPDATE OF r`,
);

/**
 * Read after the run's lock is taken, in a statement of its own: a statement that waited for the
 * lock still reads the approval as of its start, which may be before another decision committed.
 */
const READ_SQL = preparedSql(
  "approval_read",
  `
SELECT a.id, a.run_id AS "runId", a.chat_id AS "chatId", a.user_id AS "userId", a.tool_call_id AS "toolCallId", a.tool,
  a.arguments, a.arguments_hash AS "argumentsHash", a.workspace_id AS "workspaceId", COALESCE(a.effects, '{}') AS effects,
  a.target_path AS "targetPath", a.target_revision AS "targetRevision", a.policy_version AS "policyVersion",
  a.expires_at AS "expiresAt", a.seal, a.status::text AS status, a.edited_arguments AS "editedArguments",
  r.status::text AS "runStatus", r.lease_version AS "leaseVersion",
  (SELECT count(*) FROM approvals AS p WHERE p.run_id = r.id AND p.status = 'pending')::int AS "pendingCount",
  (SELECT COALESCE(json_agg(json_build_object('id', o.id, 'toolCallId', o.tool_call_id, 'effects', COALESCE(o.effects, '{}')) ORDER BY o.created_at, o.id), '[]'::json)
    FROM approvals AS o WHERE o.run_id = r.id AND o.status = 'pending' AND o.tool = a.tool AND o.id <> a.id) AS "sameToolPending"
FROM runs AS r
JOIN approvals AS a ON a.run_id = r.id
WHERE r.id = $1 AND a.id = $2`,
);

/**
 * A human's decision on a paused call (API.md, "Approvals"). In one transaction: the record's owner,
 * seal, expiry and bound file revision are checked, the approval is consumed with a conditional
 * update (exactly one concurrent decision wins, invariant 5), a grant is stored for allow_task /
 * allow_chat (deciding the run's other pending approvals it covers), and when nothing is pending any
 * more the run becomes queued again. The worker that resumes it re-checks policy where the call runs.
 *
 * Plain SQL over the Prisma client's pool: this is on the resume path users wait on (issue 4's
 * latency budget). Five round trips where Prisma's interactive transaction took twelve: begin, lock,
 * read, one statement for the approvals, the grant, the run and its events (store/run-statement.ts),
 * commit.
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
      const [locked] = await queryRows<{ id: string; target_path: string | null; root_path: string | null }>(client, LOCK_SQL, [
        input.approvalId,
        input.userId,
      ]);
      if (!locked) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
      const allow = input.decision !== "deny";
      // Only an allow needs the file to be as proposed; a deny runs nothing, and refusing it would
      // leave the run parked with no way to say no but a cancel. Used only once the seal verifies.
      const currentRevision =
        allow && locked.target_path && locked.root_path ? workspaceFileRevision(locked.root_path, locked.target_path).catch(() => null) : undefined;
      const [approval] = await queryRows<LockedApproval>(client, READ_SQL, [locked.id, input.approvalId]);
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
          chatId: approval.chatId,
          runId: input.decision === "allow_task" ? approval.runId : null,
          scope: input.decision === "allow_task" ? "task" : "chat",
          tool: approval.tool,
          effects: approval.effects,
          approvalId: approval.id,
        });
      }
      if (stillPending === 0) change.status = RunStatus.queued;
      // The run's lock is held, so its lease version cannot have moved since it was read.
      const committed = await commitRunStatement(client, change, now);
      if (!committed) throw new RunStateConflictError(approval.runId, "the run changed state meanwhile; fetch it again");
      // The consumption is conditional (still pending): exactly one of concurrent decisions wins.
      if (committed.approvalsDecided !== 1 + covered.length) throw new ApprovalAlreadyDecidedError(approval.id);
      return {
        runId: approval.runId,
        status: committed.run.status,
        events: committed.events,
        resume: stillPending === 0 ? { lastEventSeq: committed.run.lastEventSeq, leaseVersion: committed.run.leaseVersion } : null,
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
