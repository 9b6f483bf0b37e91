/** A failed API call: the HTTP status and the API's error body (API.md "Errors"). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** What the API said, or a sentence a person can act on when it said nothing useful. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong.";
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

export function networkError(): ApiError {
  return new ApiError(0, "network_error", "Could not reach the agentq API. Check that it is running, then try again.");
}

/** Reads `{error: {code, message, details}}`; anything else becomes a generic error for the status. */
export function apiErrorFromBody(status: number, body: unknown): ApiError {
  const error = typeof body === "object" && body !== null && "error" in body ? (body as { error: unknown }).error : undefined;
  if (typeof error === "object" && error !== null) {
    const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
    return new ApiError(
      status,
      typeof code === "string" ? code : `http_${status}`,
      typeof message === "string" && message ? message : `The API answered ${status}.`,
      typeof details === "object" && details !== null ? (details as Record<string, unknown>) : undefined,
    );
  }
  return new ApiError(status, `http_${status}`, status >= 500 ? "The API failed to answer. Try again in a moment." : `The API answered ${status}.`);
}
