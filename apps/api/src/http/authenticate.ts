import type { RequestHandler, Request } from "express";
import { ForbiddenError } from "@agentq/core/errors/agentq-error";
import type { PrismaClient } from "@agentq/core/store/create-prisma-client";
import { isAdmin, type AuthenticatedUser } from "@agentq/core/users/user";
import { UnauthorizedError } from "@agentq/core/users/user-errors";
import { findUserByToken } from "@agentq/core/users/user-store";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` on every /api request. */
      user?: AuthenticatedUser;
    }
  }
}

/** The bearer token of a request; the WebSocket path may carry it as `?token=` (browsers cannot set headers there). */
function tokenOf(request: Request, allowQueryToken: boolean): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  if (allowQueryToken && typeof request.query.token === "string") return request.query.token;
  return undefined;
}

export interface AuthenticateOptions {
  /** Paths (relative to the mount point) that may pass the token as `?token=`. Default `["/ws"]` (GET /api/ws). */
  queryTokenPaths?: readonly string[];
}

export function authenticate(prisma: PrismaClient, options: AuthenticateOptions = {}): RequestHandler {
  const queryTokenPaths = new Set(options.queryTokenPaths ?? ["/ws"]);
  return async (request, _response, next) => {
    const token = tokenOf(request, queryTokenPaths.has(request.path));
    if (token === undefined) throw new UnauthorizedError();
    const user = await findUserByToken(prisma, token);
    if (user === undefined) throw new UnauthorizedError("the bearer token is not valid");
    request.user = user;
    next();
  };
}

/** The caller of an authenticated route (authenticate ran first, so it is always set there). */
export function currentUser(request: Request): AuthenticatedUser {
  if (request.user === undefined) throw new UnauthorizedError();
  return request.user;
}

export function requireAdmin(request: Request): AuthenticatedUser {
  const user = currentUser(request);
  if (!isAdmin(user)) throw new ForbiddenError();
  return user;
}
