/** Why a run's execution was interrupted from outside the loop. */
export type RunAbortReason = "cancel" | "shutdown" | "lease_lost";

/** The reason given to AbortController.abort() for a run's signal. */
export class RunAbort extends Error {
  readonly reason: RunAbortReason;

  constructor(reason: RunAbortReason) {
    super(`run execution interrupted: ${reason}`);
    this.name = "RunAbort";
    this.reason = reason;
  }
}

export function abortReasonOf(signal: AbortSignal): RunAbortReason | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof RunAbort ? signal.reason.reason : "cancel";
}
