import { AgentqError, ConflictError } from "../errors/agentq-error.ts";

/** Missing, malformed or unknown bearer token. */
export class UnauthorizedError extends AgentqError {
  constructor(message = "a valid bearer token is required: send Authorization: Bearer <token>") {
    super("unauthorized", message);
  }
}

/** A bearer token that no enabled user holds (unknown, replaced, or its user disabled). */
export class InvalidTokenError extends UnauthorizedError {
  constructor() {
    super("the bearer token is not valid");
  }
}

export class UserExistsError extends ConflictError {
  constructor(name: string) {
    super("user_exists", `a user named "${name}" already exists; choose another name`, { name });
  }
}

/** A change that would leave the deployment without an enabled admin (so no one could manage users again). */
export class LastAdminError extends ConflictError {
  constructor(userId: string) {
    super("last_admin", "this is the last enabled admin: make another user an admin first, then change this one", { user_id: userId });
  }
}
