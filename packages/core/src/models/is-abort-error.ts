/**
 * What a model client throws when the caller's `request.signal` aborts: `signal.reason` itself
 * (a DOMException named "AbortError" unless the caller passed its own reason to `abort()`).
 * The loop should decide on `request.signal.aborted`, not on the error's type; this helper exists
 * for code that only has the error.
 */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError");
}

/** Throws the signal's reason, normalizing a non-Error reason into an AbortError DOMException. */
export function throwAbortReason(signal: AbortSignal): never {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) throw reason;
  throw new DOMException(typeof reason === "string" ? reason : "the model request was cancelled", "AbortError");
}
