import { RunStatus } from "../store/generated/enums.ts";

export { RunStatus };

/** Statuses a run never leaves. */
const TERMINAL: ReadonlySet<RunStatus> = new Set([RunStatus.completed, RunStatus.failed, RunStatus.cancelled]);

/** The run has ended: completed, failed or cancelled. */
export function isTerminal(status: RunStatus): boolean {
  return TERMINAL.has(status);
}

/** The run waits for a human: it holds no worker and no queue job (invariant 4). */
export function isParked(status: RunStatus): boolean {
  return status === RunStatus.awaiting_approval;
}

export const ACTIVE_STATUSES: readonly RunStatus[] = [RunStatus.queued, RunStatus.running, RunStatus.awaiting_approval];
