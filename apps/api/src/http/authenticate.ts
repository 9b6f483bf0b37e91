import type { IncomingMessage } from "node:http";
import type { RequestHandler, Request } from "express";
import { type AuthenticatedUser, findUserByToken, ForbiddenError, isAdmin, type PrismaClient, UnauthorizedError } from "@agentq/core";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` on every /api request. */
      user?: AuthenticatedUser;
    }
  }
}

/**
 * The bearer token of a request (plain node request, so the WebSocket upgrade handler can use it
 * too). `allowQueryToken`: also accept `?token=`, which only the WebSocket path may do (browsers
 * cannot set headers there). A malformed Authorization header is no token, whatever the query says.
 */
export function requestToken(request: IncomingMessage, allowQueryToken: boolean): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!allowQueryToken) return undefined;
  const token = new URL(request.url ?? "/", "http://localhost").searchParams.getAll("token");
  return token.length === 1 && token[0] !== "" ? token[0] : undefined;
}

/** The user a token belongs to, or UnauthorizedError (for the WebSocket upgrade: answer it with 401). */
export async function authenticateToken(prisma: PrismaClient, token: string | undefined): Promise<AuthenticatedUser> {
  if (token === undefined) throw new UnauthorizedError();
  const user = await findUserByToken(prisma, token);
  if (user === undefined) throw new UnauthorizedError("the bearer token is not valid");
  return user;
}

export interface AuthenticateOptions {
  /**
   * Paths (relative to the mount point) that may pass the token as `?token=`, besides the WebSocket
   * (`/ws`): a browser cannot set headers there. createApp passes the routes that declare `queryToken`
   * (a run's event stream, for EventSource). Default none.
   */
  queryTokenPaths?: readonly (string | RegExp)[];
}

export function authenticate(prisma: PrismaClient, options: AuthenticateOptions = {}): RequestHandler {
  const queryTokenPaths = ["/ws", ...(options.queryTokenPaths ?? [])];
  const mayUseQueryToken = (path: string) => queryTokenPaths.some((allowed) => (typeof allowed === "string" ? allowed === path : allowed.test(path)));
  return async (request, _response, next) => {
    // With an Authorization header the query is never read (requestToken): no path to test.
    const allowQueryToken = request.headers.authorization === undefined && mayUseQueryToken(request.path);
    request.user = await authenticateToken(prisma, requestToken(request, allowQueryToken));
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
