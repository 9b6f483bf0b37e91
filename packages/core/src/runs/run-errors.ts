import { AgentqError, ConflictError } from "../errors/agentq-error.ts";
import type { ErrorCode } from "../errors/error-codes.ts";

/**
 * The worker's lease on a run was taken over (its fencing version no longer matches), or the run
 * left the expected status. The writer must stop at once: its view of the run is stale.
 */
export class LeaseLostError extends AgentqError {
  constructor(runId: string) {
    super("lease_lost", `run ${runId} is owned by another worker now; this worker stops writing to it`, { run_id: runId });
  }
}

/** A change was asked of a run whose status does not allow it (another writer got there first). */
export class RunStateConflictError extends ConflictError {
  constructor(runId: string, message: string, code: ErrorCode = "run_state_conflict") {
    super(code, message, { run_id: runId });
  }
}

/** The run has finished (completed, failed or cancelled): it can no longer change. */
export class RunFinishedError extends ConflictError {
  constructor(runId: string) {
    super("run_finished", "the run has already finished", { run_id: runId });
  }
}

/** The chat already has a queued, running or awaiting-approval run (multitask "reject"). */
export class RunInProgressError extends ConflictError {
  constructor(chatId: string, activeRunId: string) {
    super("run_in_progress", 'the chat already has a run in progress; wait for it, cancel it, or send multitask "enqueue" or "interrupt"', {
      chat_id: chatId,
      run_id: activeRunId,
    });
  }
}
