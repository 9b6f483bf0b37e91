import type { Clock } from "../clock.ts";
import { AgentqError, ConflictError, InvalidRequestError, NotFoundError } from "../errors/agentq-error.ts";
import type { NewRunEvent, RunEventRecord } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import { RunFinishedError } from "../runs/run-errors.ts";
import { isTerminal, RunStatus } from "../runs/run-status.ts";
import { applyRunChange } from "../store/commit-run-change.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import type { ToolDefinition } from "../tools/tool-definition.ts";
import { validateToolArguments } from "../tools/parse-tool-arguments.ts";
import { workspaceFileRevision } from "../workspaces/workspace-files.ts";
import { isApprovalIntact } from "./approval-seal.ts";

export type ApprovalDecisionKind = "allow_task" | "allow_chat" | "deny";

export class ApprovalAlreadyDecidedError extends ConflictError {
  constructor(approvalId: string) {
    super("approval_already_decided", "this approval has already been decided", { approval_id: approvalId });
  }
}

export class ApprovalExpiredError extends AgentqError {
  constructor(approvalId: string, expiredAt: Date) {
    super("approval_expired", "this approval expired; the run stays paused until it is cancelled", { approval_id: approvalId, expired_at: expiredAt.toISOString() });
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

/**
 * A human's decision on a paused call (API.md, "Approvals"). In one transaction: the record's owner,
 * seal, expiry and bound file revision are checked, the approval is consumed with a conditional
 * update (exactly one concurrent decision wins, invariant 5), a grant is stored for allow_task /
 * allow_chat (deciding the run's other pending approvals it covers), and when nothing is pending any
 * more the run becomes queued again. The worker that resumes it re-checks policy where the call runs.
 */
export async function decideApproval(dependencies: DecideApprovalDependencies, input: DecideApprovalInput): Promise<DecideApprovalResult> {
  const now = dependencies.clock();
  return dependencies.prisma.$transaction(async (tx) => {
    const proposed = await tx.approval.findFirst({ where: { id: input.approvalId, userId: input.userId }, select: { runId: true, status: true } });
    if (!proposed) throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
    // Repeated clicks are answered without queueing on the run's lock.
    if (isDecided(proposed.status)) throw new ApprovalAlreadyDecidedError(input.approvalId);
    // Decisions on one run are serialized on the run's row: two users deciding the last two
    // approvals at once would otherwise each count the other's as still pending, and neither would
    // resume the run. Cancel takes the same lock first too. Everything below reads after the lock.
    await tx.$queryRaw`SELECT id FROM runs WHERE id = ${proposed.runId} FOR UPDATE`;
    const approval = await tx.approval.findUniqueOrThrow({ where: { id: input.approvalId } });
    const run = await tx.run.findUniqueOrThrow({ where: { id: approval.runId }, select: { status: true, chat: { select: { workspace: { select: { rootPath: true } } } } } });
    // A decided approval stays "already decided" after its run finishes: a replayed click must not
    // read as if the run had been cancelled under it.
    if (isDecided(approval.status)) throw new ApprovalAlreadyDecidedError(approval.id);
    if (isTerminal(run.status) || approval.status !== "pending") throw new RunFinishedError(approval.runId);
        // A record altered in the database is treated like a forged id.
    if (!isApprovalIntact(dependencies.approvalSecret, approval)) {
      throw new NotFoundError("approval", { tool_approval_id: input.approvalId });
    }
    if (approval.expiresAt.getTime() <= now.getTime()) throw new ApprovalExpiredError(approval.id, approval.expiresAt);
    const allow = input.decision !== "deny";
    const rootPath = run.chat.workspace?.rootPath;
    // Only an allow needs the file to be as proposed; a deny runs nothing, and refusing it would
    // leave the run parked with no way to say no but a cancel.
    if (allow && approval.targetPath && rootPath) {
      const revision = await workspaceFileRevision(rootPath, approval.targetPath).catch(() => null);
      if (revision !== approval.targetRevision) throw new ApprovalStaleError(approval.id, approval.targetPath);
    }
    let editedArguments: Record<string, unknown> | undefined;
    if (allow && input.arguments !== undefined) {
      const tool = dependencies.tools.get(approval.tool);
      const validated = tool ? validateToolArguments(tool, input.arguments) : { ok: true as const, args: input.arguments };
      if (!validated.ok) throw new InvalidRequestError(`the edited arguments do not fit the tool: ${validated.error}`, { field: "arguments" });
      editedArguments = input.arguments;
    }

    const consumed = await tx.approval.updateMany({
      where: { id: approval.id, status: "pending" },
      data: {
        status: allow ? "allowed" : "denied",
        decision: input.decision,
        decidedBy: input.userId,
        decidedAt: now,
        ...(editedArguments ? { editedArguments: editedArguments as never } : {}),
      },
    });
    if (consumed.count !== 1) throw new ApprovalAlreadyDecidedError(approval.id);
    const decidedEvents: NewRunEvent[] = [decidedEvent(approval.id, approval.tool, approval.toolCallId, input, editedArguments !== undefined)];

    if (allow) {
      await tx.grant.create({
        data: {
          id: dependencies.generateId("grant"),
          userId: input.userId,
          chatId: approval.chatId,
          runId: input.decision === "allow_task" ? approval.runId : null,
          scope: input.decision === "allow_task" ? "task" : "chat",
          tool: approval.tool,
          effects: approval.effects,
          approvalId: approval.id,
          createdAt: now,
        },
      });
      // The new grant covers the run's other pending calls of the same tool and effects.
      const covered = await tx.approval.findMany({
        where: { runId: approval.runId, status: "pending", tool: approval.tool, id: { not: approval.id } },
        select: { id: true, toolCallId: true, effects: true },
      });
      for (const other of covered.filter((candidate) => sameEffects(candidate.effects, approval.effects))) {
        const decided = await tx.approval.updateMany({
          where: { id: other.id, status: "pending" },
          data: { status: "allowed", decision: input.decision, decidedBy: input.userId, decidedAt: now },
        });
        if (decided.count === 1) decidedEvents.push(decidedEvent(other.id, approval.tool, other.toolCallId, input, false, approval.id));
      }
    }

    const stillPending = await tx.approval.count({ where: { runId: approval.runId, status: "pending" } });
    const result = await applyRunChange(
      tx,
      {
        runId: approval.runId,
        condition: { statusIn: [RunStatus.awaiting_approval] },
        update: stillPending === 0 ? { status: RunStatus.queued } : {},
        events: decidedEvents,
      },
      now,
    );
    return {
      runId: approval.runId,
      status: result.run.status,
      events: result.events,
      resume: stillPending === 0 ? { lastEventSeq: result.run.lastEventSeq, leaseVersion: result.run.leaseVersion } : null,
    };
  }, DECISION_TRANSACTION);
}

/**
 * Prisma's defaults (2 s to get a connection, 5 s to finish) are short for a burst of clicks on a
 * busy database: decisions on one run wait for each other's lock. Waiting longer beats a 500.
 */
const DECISION_TRANSACTION = { maxWait: 10_000, timeout: 15_000 } as const;

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
