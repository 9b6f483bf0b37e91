import type { ToolOfferContext } from "../../policy/offered-tools.ts";
import { createFileReadLedger } from "../../store/file-read-ledger.ts";
import { emptyStatementChange, isEmptyStatementChange, type CommittedChange, type RunStatementChange, stageFileRead } from "../../store/run-statement.ts";
import type { FileReadLedger } from "../../tools/tool-definition.ts";
import type { RunContext } from "../load-run-context.ts";
import type { LoopState } from "../loop-state.ts";
import { abortReasonOf } from "../run-abort.ts";
import { type ApprovalDecisionRecord, type DecisionCommitOutcome, stageApprovalDecision } from "../approval-decision-record.ts";
import { LeaseLostError } from "../run-errors.ts";
import type { RunLease } from "../run-lease.ts";
import type { RunLoopDependencies } from "../run-loop-dependencies.ts";
import type { RunOutcome } from "../run-outcome.ts";

export interface ExecuteRunInput {
  lease: RunLease;
  /** The run as taking the lease read it (`acquireRun`); read again when absent. */
  context?: RunContext;
  /** Aborted on cancel, on lease loss, or at the hard deadline of a shutdown (see RunAbort). */
  signal: AbortSignal;
  /** True once the worker is shutting down: stop at the next committed point and hand the run back. */
  shouldHandBack: () => boolean;
  /**
   * The lease is not taken yet (runs/new-run-start.ts): the first commit takes it for `lease.owner`,
   * for this many seconds, fenced by `lease.leaseVersion`; `lease.leaseVersion` is then the version it
   * took, and `onLeased` is called.
   */
  leaseOnFirstCommit?: { leaseSeconds: number; onLeased: () => void };
  /**
   * A decision on the run's last pending approval that its deciding request left to this execution to
   * commit (runs/approval-decision-record.ts): staged before anything else, so that the first commit records
   * the decision, fenced by the run's last event seq as the decision read it, and takes the lease
   * (`leaseOnFirstCommit`, from the run's version as read) in one statement. `settle` learns what
   * became of it: committed (and how many of its approvals the commit consumed), or refused by the
   * fence (nothing written; the execution then ends as a lost lease).
   */
  decisionOnFirstCommit?: { record: ApprovalDecisionRecord; settle: (outcome: FirstCommitDecisionOutcome) => void };
}

/** What the first commit of an execution made of the decision it carried (ExecuteRunInput.decisionOnFirstCommit). */
export type FirstCommitDecisionOutcome = Extract<DecisionCommitOutcome, { kind: "committed" | "refused" }>;

/** Why the loop must stop before its next model request or tool call; `cancel` is finished by the driver. */
export type Interruption = RunOutcome | "cancel";

/**
 * One worker's execution of one run: what it has loaded and committed, and the change staged for
 * the next commit. The loop's modules change the run only by staging changes here and flushing them
 * (the one commit path, `store/run-statement.ts`); the pure steps return new loop state instead of
 * changing it.
 */
export class RunExecution {
  readonly dependencies: RunLoopDependencies;
  readonly input: ExecuteRunInput;
  /** The run as loaded, with its counters, taint and transcript kept up to date with what is staged. */
  readonly context: RunContext;
  readonly offerContext: ToolOfferContext;
  /** Call ids already used in the chat: the normalizer renames a model's repeated id. */
  readonly usedCallIds: Set<string>;
  /** The run's file reads for its tools; a tool's reads commit with its result. */
  readonly fileReads: FileReadLedger;
  /** Committed with every flush. */
  loopState: LoopState;
  /** Mirrors run.cancel_requested as of the last commit. */
  #cancelRequested: boolean;
  /**
   * Changes recorded but not yet committed. Consecutive changes with no side effect between them
   * (a call's result and the next round's start, an assistant message and its first call's start)
   * share one commit; `flush()` runs before every side effect (a tool handler, a model request) and
   * before the execution ends, so invariant 2 holds where it matters.
   */
  #staged: RunStatementChange | null = null;
  /** The lease the next commit takes (ExecuteRunInput.leaseOnFirstCommit); null once held. */
  #leaseToTake: ExecuteRunInput["leaseOnFirstCommit"] | null;
  /** Told what the next commit made of the decision staged first (ExecuteRunInput.decisionOnFirstCommit); null once told. */
  #decisionToSettle: ((outcome: FirstCommitDecisionOutcome) => void) | null = null;

  constructor(dependencies: RunLoopDependencies, input: ExecuteRunInput, context: RunContext) {
    this.dependencies = dependencies;
    this.input = input;
    this.context = context;
    this.loopState = context.loopState;
    this.#cancelRequested = context.run.cancelRequested;
    this.#leaseToTake = input.leaseOnFirstCommit ?? null;
    this.usedCallIds = new Set(context.transcript.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : [])));
    this.fileReads = createFileReadLedger(dependencies.prisma, context.run.id, (read) => this.stage((change) => stageFileRead(change, read)));
    const { run } = context;
    this.offerContext = {
      mode: run.mode,
      allowBash: run.allowBash,
      allowWebSearch: run.allowWebSearch,
      useWeb: run.useWeb,
      tools: run.tools,
      hasWorkspace: context.workspace !== null,
      role: context.role,
      settings: context.settings,
    };
    if (input.decisionOnFirstCommit) {
      const { record, settle } = input.decisionOnFirstCommit;
      this.stage((change) => stageApprovalDecision(change, record));
      this.#decisionToSettle = settle;
    }
  }

  get runId(): string {
    return this.context.run.id;
  }

  /** Records a change to commit with the next flush (hot path: one SQL statement per flush). */
  stage(apply: (change: RunStatementChange) => void): void {
    this.#staged ??= emptyStatementChange(this.runId, this.input.lease.leaseVersion);
    apply(this.#staged);
  }

  /** Commits what is staged under this worker's lease, then publishes its events; returns what the commit reported. */
  async flush(): Promise<CommittedChange | null> {
    const staged = this.#staged;
    this.#staged = null;
    if (!staged || isEmptyStatementChange(staged)) return null;
    if (staged.loopState === undefined) staged.loopState = this.loopState;
    const leaseToTake = this.#leaseToTake;
    if (leaseToTake) staged.handTo = { owner: this.input.lease.owner, leaseSeconds: leaseToTake.leaseSeconds };
    const result = await this.dependencies.commits.commit(staged, this.context.run.chatId);
    const decisionToSettle = this.#decisionToSettle;
    this.#decisionToSettle = null;
    if (!result) {
      decisionToSettle?.({ kind: "refused" });
      throw new LeaseLostError(this.runId);
    }
    decisionToSettle?.({ kind: "committed", approvalsDecided: result.approvalsDecided, status: result.run.status });
    if (leaseToTake) {
      // Held now, at the version this commit bumped to: every later commit, renewal and release names it.
      this.input.lease.leaseVersion = result.run.leaseVersion;
      this.#leaseToTake = null;
      leaseToTake.onLeased();
    }
    this.#cancelRequested = result.run.cancelRequested;
    if (result.events.length > 0) {
      this.dependencies.publisher.publishEvents(this.context.run, result.events).catch((error: unknown) => {
        this.dependencies.logger.warn({ run_id: this.runId, err: error }, "publishing run events failed; subscribers replay from Postgres");
      });
    }
    return result;
  }

  /** Why the loop must stop now, if it must: checked before every model request and tool call. */
  interruption(): Interruption | null {
    const reason = abortReasonOf(this.input.signal);
    if (reason === "lease_lost") return { kind: "lease_lost" };
    if (this.#cancelRequested || reason === "cancel") return "cancel";
    if (reason === "shutdown" || this.input.shouldHandBack()) return { kind: "handed_back" };
    return null;
  }
}
