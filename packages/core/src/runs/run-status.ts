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

/** Queued, running or parked: a chat with such a run has a run in progress (multitask). */
export function isActive(status: RunStatus): boolean {
  return !isTerminal(status);
}

/** A worker may take the run: it is waiting for one, or its previous worker stopped. */
export function isExecutable(status: RunStatus): boolean {
  return status === RunStatus.queued || status === RunStatus.running;
}

export const ACTIVE_STATUSES: readonly RunStatus[] = [RunStatus.queued, RunStatus.running, RunStatus.awaiting_approval];
export const EXECUTABLE_STATUSES: readonly RunStatus[] = [RunStatus.queued, RunStatus.running];
