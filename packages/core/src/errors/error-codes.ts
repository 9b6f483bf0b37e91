/**
 * Every `code` an AgentqError can carry, with the HTTP status the API answers it with (API.md,
 * "Errors"). One table: adding an error means adding its code here, and the compiler then holds the
 * API's mapping exhaustive. `null`: an internal failure that never reaches a client as itself (the
 * API answers `500 internal_error` with the request id, and logs it).
 */
export const ERROR_HTTP_STATUS = {
  // The request itself.
  invalid_request: 400,
  path_outside_workspace: 400,
  path_not_allowed: 400,
  invalid_path: 400,
  not_a_file: 400,
  not_a_directory: 400,
  destination_not_allowed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  file_not_found: 404,
  payload_too_large: 413,
  file_too_large: 413,
  binary_file: 415,
  unsupported_media_type: 415,
  headers_too_large: 431,
  // The state it met.
  user_exists: 409,
  last_admin: 409,
  run_in_progress: 409,
  run_finished: 409,
  run_state_conflict: 409,
  approval_already_decided: 409,
  approval_stale: 409,
  revision_mismatch: 409,
  revision_conflict: 409,
  job_finished: 409,
  mcp_server_exists: 409,
  email_already_sent: 409,
  email_not_configured: 409,
  approval_expired: 410,
  // Limits (Team operations).
  quota_exceeded: 429,
  rate_limited: 429,
  // The server and what it depends on.
  internal_error: 500,
  workspace_root_missing: 500,
  unavailable: 503,
  service_unavailable: 503,
  // Internal: the loop, providers and tools (results for the model, run errors), boot and migrations.
  lease_lost: null,
  stream_timeout: null,
  model_provider_error: null,
  model_provider_unreachable: null,
  model_provider_not_configured: null,
  search_backend_failed: null,
  fetch_failed: null,
  invalid_environment: null,
  admin_token_conflict: null,
  migrations_directory_invalid: null,
  migration_checksum_mismatch: null,
  migration_failed_previously: null,
  migration_missing_from_directory: null,
  migration_sql_failed: null,
  migration_lock_timeout: null,
  database_create_forbidden: null,
} as const satisfies Record<string, number | null>;

export type ErrorCode = keyof typeof ERROR_HTTP_STATUS;

/** The HTTP status of a code, or undefined for an internal one (answered as `500 internal_error`). */
export function httpStatusOf(code: ErrorCode): number | undefined {
  return ERROR_HTTP_STATUS[code] ?? undefined;
}
