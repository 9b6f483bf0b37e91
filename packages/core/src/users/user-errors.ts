import { AgentqError, ConflictError } from "../errors/agentq-error.ts";

/** Missing, malformed or unknown bearer token. */
export class UnauthorizedError extends AgentqError {
  constructor(message = "a valid bearer token is required: send Authorization: Bearer <token>") {
    super("unauthorized", message);
  }
}

export class UserExistsError extends ConflictError {
  constructor(name: string) {
    super("user_exists", `a user named "${name}" already exists; choose another name`, { name });
  }
}
