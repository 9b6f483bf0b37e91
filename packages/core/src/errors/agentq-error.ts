import type { ErrorCode } from "./error-codes.ts";

/**
 * The root of agentq's error hierarchy. `code` is stable, snake_case, and is the same code the
 * HTTP API returns (API.md, "Errors"); `message` is a sentence for a human that says what to do;
 * `details` holds structured fields (the offending field, the limit, ...).
 */
export class AgentqError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Input that does not fit the contract: a wrong type, an unknown enum value, a missing field. */
export class InvalidRequestError extends AgentqError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("invalid_request", message, details);
  }
}

/** The resource does not exist, or belongs to someone else (the two are indistinguishable). */
export class NotFoundError extends AgentqError {
  constructor(resource: string, details?: Record<string, unknown>) {
    super("not_found", `${resource} not found`, details);
  }
}

/** A state conflict: the request is well-formed but the resource's state forbids it. */
export class ConflictError extends AgentqError {}

/** Authenticated, but this user may not do this. */
export class ForbiddenError extends AgentqError {
  constructor(message = "this action needs the admin role") {
    super("forbidden", message);
  }
}

/** A path given by a user or a model resolves outside its workspace. */
export class PathOutsideWorkspaceError extends AgentqError {
  constructor(path: string) {
    super("path_outside_workspace", "the path resolves outside the workspace; use a path relative to the workspace root", { path });
  }
}

/** A dependency (Postgres, Redis, a provider) cannot be reached right now; retrying later may work. */
export class UnavailableError extends AgentqError {
  constructor(message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super("unavailable", message, details, options);
  }
}
