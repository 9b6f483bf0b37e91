import { type AgentqError, httpStatusOf } from "@agentq/core";

/**
 * The HTTP status of an error (API.md, "Errors"), from core's one table of codes
 * (`packages/core/src/errors/error-codes.ts`, exhaustive by type). Undefined: an internal failure,
 * which the API answers as `500 internal_error` with the request id.
 */
export function statusForError(error: AgentqError): number | undefined {
  return httpStatusOf(error.code);
}
