import { emailContentRevision } from "../email/email-revision.ts";
import type { Clock } from "../clock.ts";
import { AgentqError, ConflictError, InvalidRequestError, NotFoundError } from "../errors/agentq-error.ts";
import { InvalidTokenError } from "../users/user-errors.ts";
import type { RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { RunFinishedError, RunStateConflictError } from "./run-errors.ts";
import { isTerminal, RunStatus } from "./run-status.ts";
import { assertNever } from "./run-outcome.ts";
import { sqlPoolOf, type PrismaClient } from "../store/create-prisma-client.ts";
import { commitRunStatement, emptyStatementChange } from "../store/run-statement.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import { decidedRunStatus, readApprovalForDecision } from "../store/statements/approval-statements.ts";
import type { AuthenticatedUser, RequestCaller } from "../users/user.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { workspaceFileRevision } from "../workspaces/workspace-files.ts";
import { isApprovalIntact } from "../policy/approval-seal.ts";
import { WORKER_PRESENCE_TIMEOUT_MS } from "../services/load-service-status.ts";
import { HANDOVER_CONTEXT_MAX_LENGTH, type ResumeHandover } from "./resume-handover.ts";
import { type ApprovalDecisionRecord, type DecisionCommitOutcome, stageApprovalDecision, type WorkerDecisionRequest } from "./approval-decision-record.ts";

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
  /**
   * Who decides: a user the caller authenticated already, or the hash of the request's bearer token
   * (users/api-token.ts): then the decision's first statement is the authentication too, and a token
   * that does not work is InvalidTokenError (401) with nothing read or written.
   */
  caller: RequestCaller;
  /**
   * Called with the caller once the first statement found them, before anything is written (the API
   * counts the request against the caller's rate limit there). Throwing stops the decision.
   */
  admitCaller?: (caller: AuthenticatedUser) => Promise<void>;
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
  /**
   * Leaves the decision of a run's last pending approval, uncommitted, to the live worker the run is
   * handed to, whose first commit of the run records it (the API: queue run-decision-offer.ts). Unset,
   * or when the worker declines: the decision commits here and the run is then offered to the worker.
   */
  commitOnWorker?: (request: WorkerDecisionRequest) => Promise<DecisionCommitOutcome>;
}

export interface DecideApprovalResult {
  /** The user who decided. */
  caller: AuthenticatedUser;
  runId: string;
  status: RunStatus;
  events: RunEventRecord[];
  /** The last pending approval was decided: the run resumes (with `resume`, or already resumed by the worker that committed the decision). */
  resumed: boolean;
  /**
   * The last pending approval was decided and committed here: hand the run to a worker with this generation; `worker`: a
   * live worker to offer it to first, picked weighted by its free slots (null: none seen, enqueue it).
   */
  resume: { lastEventSeq: number; leaseVersion: number; worker: string | null; handover: ResumeHandover | null } | null;
}

/**
 * A human's decision on a paused call (API.md, "Approvals"). The approval is read with its run in one
 * statement; the record's owner, seal, expiry and bound file revision are checked; and one commit
 * statement (store/run-statement.ts) consumes the approval with a conditional update (exactly one
 * concurrent decision wins, invariant 5), stores a grant for allow_task / allow_chat (deciding the
 * run's other pending approvals it covers), writes the audit entry, and, when nothing is pending any
 * more, makes the run queued again, leased to the live worker the read picked if there is one
 * (resume-handover.ts). The worker that resumes it re-checks policy where the call runs.
 *
 * When the decision resumes the run and `commitOnWorker` is given (the API), that commit is left to the
 * worker the run is handed to: its first commit of the run stages the same decision
 * (approval-decision-record.ts) under the same fence, with the resumption, one round trip fewer before
 * the approved call runs. The worker answers what became of it; declined, the decision commits here; no
 * answer, it commits here unless its audit entry (whose id this request chose) shows it committed.
 *
 * No lock and no transaction around the two: the commit is fenced by the run's last event seq as read
 * (whatever changes a run's approvals, a decision or a cancel, appends an event to it), so a decision
 * that read before another change committed writes nothing and reads again. Two round trips on the
 * resume path users wait on (issue 11), where locking the run first took five: begin, lock, read,
 * commit statement, commit. Given the request's token (`caller`), the read is its authentication too:
 * a lookup before it was a third.
 */
export async function decideApproval(dependencies: DecideApprovalDependencies, input: DecideApprovalInput): Promise<DecideApprovalResult> {
  const pool = sqlPoolOf(dependencies.prisma);
  // The audit entry ids of this request's decisions left to a worker that did not answer: one of them
  // may have committed after all.
  const unanswered: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptDecision(dependencies, pool, input, attempt, unanswered);
    if (!("changedRunId" in outcome)) return outcome;
    // Something else was committed to the run since the read (another of its approvals decided, a cancel).
    if (attempt >= DECISION_ATTEMPTS) throw new RunStateConflictError(outcome.changedRunId, "the run kept changing meanwhile; fetch it again");
  }
}

/**
 * Reads taken again when the run changed between a decision's read and its commit. Each retry
 * follows a commit of someone else's on the same run, so only a burst of decisions on many approvals
 * of one run at once comes near this. Default 16.
 */
const DECISION_ATTEMPTS = 16;

/** One read and, if it still holds, the commit; `changedRunId` when the run changed after the read (nothing written). */
async function attemptDecision(
  dependencies: DecideApprovalDependencies,
  pool: SqlRunner,
  input: DecideApprovalInput,
  attempt: number,
  unanswered: string[],
): Promise<DecideApprovalResult | { changedRunId: string }> {
  const now = dependencies.clock();
  const read = await readApprovalForDecision(pool, {
    approvalId: input.approvalId,
    caller: input.caller,
    workerSeenSeconds: WORKER_PRESENCE_TIMEOUT_MS / 1000,
  });
  if (!read) {
    if ("tokenHash" in input.caller) throw new InvalidTokenError();
    throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
  }
  const { caller, approval } = read;
  // Once: a read again after a fence conflict belongs to the same request.
  if (attempt === 1) await input.admitCaller?.(caller);
  if (!approval) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
  const userId = caller.id;
  const allow = input.decision !== "deny";
  // A decided approval stays "already decided" after its run finishes: a replayed click must not
  // read as if the run had been cancelled under it.
  if (isDecided(approval.status)) {
    // Decided by this request, on the worker that did not answer: it committed after all.
    const status = unanswered.length > 0 ? await decidedRunStatus(pool, unanswered, approval.runId) : null;
    if (status !== null) return { caller, runId: approval.runId, status, events: [], resumed: true, resume: null };
    throw new ApprovalAlreadyDecidedError(approval.id);
  }
  if (isTerminal(approval.runStatus) || approval.status !== "pending") throw new RunFinishedError(approval.runId);
  if (approval.runStatus !== RunStatus.awaiting_approval) throw new RunStateConflictError(approval.runId, "the run changed state meanwhile; fetch it again");
  // A record altered in the database is treated like a forged id.
  if (!isApprovalIntact(dependencies.approvalSecret, approval)) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
  if (approval.expiresAt.getTime() <= now.getTime()) throw new ApprovalExpiredError(approval.id, approval.expiresAt);
  // Only an allow needs the bound file, document or email to be as proposed; a deny runs nothing, and
  // refusing it would leave the run parked with no way to say no but a cancel. The worker checks
  // them again where the call runs.
  if (allow && approval.targetPath && approval.rootPath) {
    const currentRevision = await workspaceFileRevision(approval.rootPath, approval.targetPath).catch(() => null);
    if (currentRevision !== approval.targetRevision) throw new ApprovalStaleError(approval.id, approval.targetPath);
  }
  if (allow && approval.targetDocumentId && String(approval.documentRevision) !== approval.targetRevision) {
    throw new ApprovalStaleError(approval.id, `document ${approval.targetDocumentId}`, {
      document_id: approval.targetDocumentId,
      current_revision: approval.documentRevision,
    });
  }
  if (allow && approval.targetEmailId && (approval.email ? emailContentRevision(approval.email) : null) !== approval.targetRevision) {
    throw new ApprovalStaleError(approval.id, `email ${approval.targetEmailId}`, { email_id: approval.targetEmailId });
  }
  let editedArguments: Record<string, unknown> | undefined;
  if (allow && input.arguments !== undefined) {
    const tool = dependencies.tools.get(approval.tool);
    const validated = tool ? validateToolArguments(tool, input.arguments) : { ok: true as const, args: input.arguments };
    if (!validated.ok) throw new InvalidRequestError(`the edited arguments do not fit the tool: ${validated.error}`, { field: "arguments" });
    editedArguments = input.arguments;
  }
  // As of the read, which the commit's fence holds to: no other decision can come in between.
  const covered = allow ? approval.sameToolPending.filter((other) => sameEffects(other.effects, approval.effects)) : [];
  const stillPending = approval.pendingCount - 1 - covered.length;
  const record: ApprovalDecisionRecord = {
    runId: approval.runId,
    lastEventSeq: approval.lastEventSeq,
    decision: input.decision,
    decidedBy: userId,
    tool: approval.tool,
    effects: approval.effects,
    approvals: [{ id: approval.id, toolCallId: approval.toolCallId }, ...covered.map((other) => ({ id: other.id, toolCallId: other.toolCallId }))],
    ...(editedArguments !== undefined ? { editedArguments } : {}),
    grantId: allow ? dependencies.generateId("grant") : null,
    auditEntryId: dependencies.generateId("aud"),
  };
  const change = emptyStatementChange(approval.runId, approval.leaseVersion);
  stageApprovalDecision(change, record);
  // The last pending approval decided: the run is queued again, and leased to the worker it is offered
  // to when there is one (resume-handover.ts), for that worker alone to take it.
  const handTo =
    stillPending === 0 &&
    approval.offerWorker !== null &&
    approval.offerLeaseMs !== null &&
    approval.runContext !== null &&
    approval.runContext.length <= HANDOVER_CONTEXT_MAX_LENGTH
      ? { worker: approval.offerWorker, context: approval.runContext, leaseMs: approval.offerLeaseMs }
      : null;
  const handover: ResumeHandover | null = handTo && {
    context: handTo.context,
    decided: change.approvalDecisions.map((decided) => ({
      approvalId: decided.id,
      status: decided.status,
      ...(decided.editedArguments !== undefined ? { editedArguments: decided.editedArguments } : {}),
    })),
    grant: change.grants[0] ? { tool: change.grants[0].tool, effects: change.grants[0].effects } : null,
  };
  if (handTo && handover && dependencies.commitOnWorker) {
    const generation = { lastEventSeq: approval.lastEventSeq, leaseVersion: approval.leaseVersion };
    const outcome = await dependencies.commitOnWorker({ worker: handTo.worker, generation, handover, record });
    const handedOn = (status: RunStatus): DecideApprovalResult => ({ caller, runId: approval.runId, status, events: [], resumed: true, resume: null });
    switch (outcome.kind) {
      case "committed":
        // As below: the fence let the decision through, so this is the last word on exactly once.
        if (outcome.approvalsDecided !== record.approvals.length) throw new ApprovalAlreadyDecidedError(approval.id);
        return handedOn(outcome.status);
      case "refused":
        return { changedRunId: approval.runId };
      case "unknown": {
        unanswered.push(record.auditEntryId);
        const status = await decidedRunStatus(pool, [record.auditEntryId], approval.runId);
        if (status !== null) return handedOn(status);
        // Not committed (yet): committed here, under the same fence, so that of the two commits one
        // at most goes through; a later read sees which.
        break;
      }
      case "declined":
        break;
      default:
        return assertNever(outcome);
    }
  }
  if (stillPending === 0) change.status = RunStatus.queued;
  if (handTo) change.handTo = { owner: handTo.worker, leaseSeconds: handTo.leaseMs / 1000 };
  const committed = await commitRunStatement(pool, change, now);
  if (!committed) return { changedRunId: approval.runId };
  // The fence let the change through, so every approval it decides was pending as read, and the
  // conditional consumption (still pending) took them all; it stays the last word on exactly once.
  if (committed.approvalsDecided !== record.approvals.length) throw new ApprovalAlreadyDecidedError(approval.id);
  return {
    caller,
    runId: approval.runId,
    status: committed.run.status,
    events: committed.events,
    resumed: stillPending === 0,
    resume:
      stillPending === 0
        ? {
            lastEventSeq: committed.run.lastEventSeq,
            leaseVersion: committed.run.leaseVersion,
            worker: approval.offerWorker,
            handover,
          }
        : null,
  };
}

function isDecided(status: string): boolean {
  return status === "allowed" || status === "denied";
}

function sameEffects(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((effect) => b.includes(effect));
}
