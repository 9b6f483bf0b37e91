import type { IncomingMessage } from "node:http";
import type { RequestHandler, Request } from "express";
import { type AuthenticatedUser, findUserByToken, ForbiddenError, InvalidTokenError, isAdmin, type PrismaClient, UnauthorizedError } from "@agentq/core";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` on every /api request, but those of routes that verify the token themselves. */
      user?: AuthenticatedUser;
      /**
       * On a route that verifies the bearer token in its own first statement (`verifiesToken`): the
       * token, not checked yet. The route sets `user` once its statement found them (api-routes.ts).
       */
      unverifiedToken?: string;
      /**
       * The request was counted against its rate limit before the statement that verifies its
       * token (http/rate-limit.ts `callerForWrite`): admitting its user counts nothing more.
       */
      countedBeforeVerifying?: boolean;
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
  if (user === undefined) throw new InvalidTokenError();
  return user;
}

export interface AuthenticateOptions {
  /**
   * Paths (relative to the mount point) that may pass the token as `?token=`, besides the WebSocket
   * (`/ws`): a browser cannot set headers there. createApp passes the routes that declare `queryToken`
   * (a run's event stream, for EventSource). Default none.
   */
  queryTokenPaths?: readonly (string | RegExp)[];
  /**
   * Routes (method and path relative to the mount point) that verify the bearer token in their own
   * first statement, one round trip fewer on a hot path: a request to one with a token is passed on
   * with `unverifiedToken` and no lookup here (one without a token is 401 here as any). createApp
   * passes the routes that declare `verifiesToken`. Default none.
   */
  tokenVerifyingRoutes?: readonly { method: string; path: RegExp }[];
}

export function authenticate(prisma: PrismaClient, options: AuthenticateOptions = {}): RequestHandler {
  const queryTokenPaths = ["/ws", ...(options.queryTokenPaths ?? [])];
  const mayUseQueryToken = (path: string) => queryTokenPaths.some((allowed) => (typeof allowed === "string" ? allowed === path : allowed.test(path)));
  const tokenVerifyingRoutes = options.tokenVerifyingRoutes ?? [];
  const verifiesTokenItself = (request: Request) => tokenVerifyingRoutes.some((route) => route.method === request.method && route.path.test(request.path));
  return async (request, _response, next) => {
    // With an Authorization header the query is never read (requestToken): no path to test.
    const allowQueryToken = request.headers.authorization === undefined && mayUseQueryToken(request.path);
    const token = requestToken(request, allowQueryToken);
    if (token !== undefined && verifiesTokenItself(request)) {
      request.unverifiedToken = token;
      next();
      return;
    }
    request.user = await authenticateToken(prisma, token);
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
