import { type AgentqError, ConflictError, ForbiddenError, InvalidRequestError, NotFoundError, UnavailableError } from "@agentq/core/errors/agentq-error";

/**
 * The one table from error code to HTTP status (API.md, "Errors"). Routes throw AgentqErrors;
 * the error handler looks their status up here. Add a code here (or call `registerErrorStatus`)
 * when a new error reaches the API.
 */
const STATUS_BY_CODE = new Map<string, number>([
  ["invalid_request", 400],
  ["path_outside_workspace", 400],
  ["path_not_allowed", 400],
  ["unauthorized", 401],
  ["forbidden", 403],
  ["not_found", 404],
  ["user_exists", 409],
  // Runs and approvals (packages/core/src/runs/run-errors.ts, runs/decide-approval.ts).
  ["run_in_progress", 409],
  ["run_finished", 409],
  ["run_state_conflict", 409],
  ["approval_already_decided", 409],
  ["job_finished", 409],
  ["approval_stale", 409],
  ["approval_expired", 410],
  ["payload_too_large", 413],
  ["unsupported_media_type", 415],
  ["headers_too_large", 431],
  ["internal_error", 500],
  ["unavailable", 503],
  ["service_unavailable", 503],
  // Workspace file access (packages/core/src/workspaces/workspace-file-errors.ts).
  ["invalid_path", 400],
  ["not_a_file", 400],
  ["not_a_directory", 400],
  ["file_not_found", 404],
  ["file_too_large", 413],
  ["binary_file", 415],
  ["revision_mismatch", 409],
  ["workspace_root_missing", 500],
]);

export function registerErrorStatus(code: string, status: number): void {
  STATUS_BY_CODE.set(code, status);
}

/**
 * Codes not in the table fall back on the error's class, then on the `*_conflict` naming rule.
 * Undefined: nothing says how this error maps, so the API treats it as an internal error.
 */
export function statusForError(error: AgentqError): number | undefined {
  const status = STATUS_BY_CODE.get(error.code);
  if (status !== undefined) return status;
  if (error instanceof ConflictError || error.code.endsWith("_conflict")) return 409;
  if (error instanceof InvalidRequestError) return 400;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ForbiddenError) return 403;
  if (error instanceof UnavailableError) return 503;
  return undefined;
}
