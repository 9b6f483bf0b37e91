import { StreamTimeoutError } from "./model-errors.ts";
import { throwAbortReason } from "./is-abort-error.ts";

/**
 * One model request's abort controller: it aborts when the caller's signal aborts (cancel) or when
 * nothing arrived for `inactivityTimeoutMs` (a stalled provider). The timer runs from creation, so a
 * server that never sends its response headers is caught too; every chunk calls `touch()`.
 */
export interface StreamWatchdog {
  /** Pass this to the SDK request; it aborts on cancel or inactivity. */
  readonly signal: AbortSignal;
  /** Restarts the inactivity timer; call on every chunk received. */
  touch(): void;
  /** Throws the caller's abort reason or a StreamTimeoutError if either stopped the request. */
  throwIfStopped(): void;
  /** Stops the timer and detaches from the caller's signal; call in `finally`. */
  dispose(): void;
}

/** `inactivityTimeoutMs` <= 0 or not finite disables the inactivity timer. */
export function createStreamWatchdog(callerSignal: AbortSignal, inactivityTimeoutMs: number): StreamWatchdog {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const timerEnabled = Number.isFinite(inactivityTimeoutMs) && inactivityTimeoutMs > 0;

  const onCallerAbort = () => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) controller.abort(callerSignal.reason);
  else callerSignal.addEventListener("abort", onCallerAbort, { once: true });

  const arm = () => {
    if (!timerEnabled || controller.signal.aborted) return;
    // Every chunk re-arms: refresh() restarts the same timer instead of making a new one.
    if (timer) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new StreamTimeoutError(inactivityTimeoutMs));
    }, inactivityTimeoutMs);
  };
  arm();

  return {
    signal: controller.signal,
    touch: arm,
    throwIfStopped() {
      // The caller's cancel wins over a timeout that fired in the same instant: cancel is what the user asked for.
      if (callerSignal.aborted) throwAbortReason(callerSignal);
      if (timedOut) throw new StreamTimeoutError(inactivityTimeoutMs);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      callerSignal.removeEventListener("abort", onCallerAbort);
    },
  };
}

/**
 * Request options for a provider SDK call under a watchdog: the watchdog's signal, no SDK retries
 * (withRetries does them), and an SDK timeout that can never fire before the watchdog does.
 */
export function sdkRequestOptions(watchdog: { signal: AbortSignal }, inactivityTimeoutMs: number): { signal: AbortSignal; maxRetries: 0; timeout?: number } {
  return {
    signal: watchdog.signal,
    maxRetries: 0,
    ...(Number.isFinite(inactivityTimeoutMs) && inactivityTimeoutMs > 0 ? { timeout: Math.ceil(inactivityTimeoutMs) + 10_000 } : {}),
  };
}
