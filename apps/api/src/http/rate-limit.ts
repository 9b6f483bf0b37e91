import type { Request, RequestHandler, Response } from "express";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AgentqError, type AuthenticatedUser, hashApiToken, type Logger, type PrismaClient, type RequestCaller, recentSettings } from "@agentq/core";
import { type RedisClient, rateLimitKeyPrefix } from "@agentq/queue";
import { authenticateToken, currentUser } from "./authenticate.ts";
import { withDeadline } from "../with-deadline.ts";

/**
 * How long a request waits for the limiter's count before going through uncounted. Default 500 ms:
 * while a Redis Cluster fails over the slot's master (seconds), commands wait for the new one, and
 * the limiter must not hold every request of the API that long.
 */
const COUNT_WAIT_MS = 500;

/** Redis errors repeat on every request while it is down: log one per this many ms. Default 30 s. */
const FAILURE_LOG_INTERVAL_MS = 30_000;

/** Tokens whose user this instance remembers for `callerForWrite` (then it starts over). Default 10,000. */
const REMEMBERED_TOKENS = 10_000;

export interface RateLimitOptions {
  prisma: PrismaClient;
  redis: RedisClient;
  /** Keys live under `<prefix>:ratelimit:` (QUEUE_PREFIX, like every key agentq creates). */
  keyPrefix: string;
  logger: Logger;
}

export interface RateLimit {
  /**
   * Counts every authenticated /api request against its user's limit, before the route. A request
   * whose token its route verifies itself (`unverifiedToken`) is admitted by the route, with `admit`,
   * once its statement found the user and before it writes anything (api-routes.ts), or by the error
   * handler when it failed before that.
   */
  handler: RequestHandler;
  /**
   * Makes `user` the request's user (found by a route's own statement) and counts the request against
   * their limit: AgentqError `rate_limited` (429, `Retry-After` set) over it.
   */
  admit(request: Request, response: Response, user: AuthenticatedUser): Promise<void>;
  /**
   * For a `verifiesToken` route whose first statement both finds the user and writes (a run's
   * creation): counts the request before that statement, so nothing is written over the limit, and
   * returns the caller the statement is to find. Counted against the user the token belonged to when
   * this instance last saw it work, the caller is the token's hash (the statement checks it, and
   * `admit` then only makes the user the request's); with no limit set, nothing needs counting. A
   * token this instance has not seen work is looked up first, counted as `admit` counts, and the
   * caller is that user. Over the limit with a token that no longer works: 401, not 429.
   */
  callerForWrite(request: Request, response: Response): Promise<RequestCaller>;
  /** After a 401: a token that stopped working is no longer remembered (nothing more is counted against its user). */
  forgetToken(request: Request): void;
}

/**
 * Per-user request rate limit of the authenticated API (`api_rate_limit_per_minute`, 0 = none), a
 * fixed one-minute window counted in Redis so every API instance shares it. Over it: `429
 * rate_limited` with `Retry-After` (seconds). When Redis does not answer, the limiter fails open:
 * the request goes through (the API's own work needs Postgres, not Redis) and the outage is logged.
 */
export function rateLimit(options: RateLimitOptions): RateLimit {
  const limiters = new Map<number, RateLimiterRedis>();
  // The limit follows the setting within recentSettings' 5 s.
  const settings = recentSettings(options.prisma);
  let lastFailureLoggedAt = 0;

  const limiterFor = (points: number): RateLimiterRedis => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: options.redis,
        points,
        duration: 60,
        // The window's count is per limit value: a changed setting starts a fresh window.
        keyPrefix: rateLimitKeyPrefix(options.keyPrefix, points),
        // A Redis that is reconnecting answers at once (fail open) instead of queueing the command.
        rejectIfRedisNotReady: true,
      });
      limiters.set(points, limiter);
    }
    return limiter;
  };

  // The user of each token verified here, so that callerForWrite can count a request before the
  // statement that verifies its token. Never an authentication: only which user's count to charge.
  const usersOfTokens = new Map<string, string>();
  const remember = (tokenHash: string, userId: string) => {
    if (usersOfTokens.size >= REMEMBERED_TOKENS) usersOfTokens.clear();
    usersOfTokens.set(tokenHash, userId);
  };

  /** Counts a request of `userId` against the limit (429 over it); false: no limit is set, nothing counted. */
  const count = async (userId: string, response: Response): Promise<boolean> => {
    const points = (await settings()).api_rate_limit_per_minute;
    if (points <= 0) return false;
    try {
      await withDeadline(limiterFor(points).consume(userId), COUNT_WAIT_MS, () => {
        throw new Error(`the rate limiter's Redis did not answer within ${COUNT_WAIT_MS} ms`);
      });
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        response.setHeader("Retry-After", String(retryAfterSeconds));
        throw new AgentqError("rate_limited", `more than ${points} requests in a minute; retry in ${retryAfterSeconds} s`, {
          limit: points,
          retry_after_seconds: retryAfterSeconds,
        });
      }
      const now = Date.now();
      if (now - lastFailureLoggedAt >= FAILURE_LOG_INTERVAL_MS) {
        lastFailureLoggedAt = now;
        options.logger.warn({ err: rejection }, "rate limiter unavailable (Redis): requests are let through unlimited until it is back");
      }
    }
    return true;
  };

  const admit = async (request: Request, response: Response, user: AuthenticatedUser): Promise<void> => {
    request.user = user;
    if (request.countedBeforeVerifying) return;
    // The token's user is remembered only where a limit applies: callerForWrite needs it for nothing else.
    if ((await count(user.id, response)) && request.unverifiedToken !== undefined) remember(hashApiToken(request.unverifiedToken), user.id);
  };

  return {
    admit,
    async callerForWrite(request, response) {
      const token = request.unverifiedToken;
      if (request.user !== undefined || token === undefined) return { userId: currentUser(request).id };
      const tokenHash = hashApiToken(token);
      if ((await settings()).api_rate_limit_per_minute > 0) {
        const userId = usersOfTokens.get(tokenHash);
        if (userId === undefined) {
          await admit(request, response, await authenticateToken(options.prisma, token));
          return { userId: currentUser(request).id };
        }
        try {
          await count(userId, response);
        } catch (overLimit) {
          // A token that stopped working answers 401 whatever its old user's count.
          usersOfTokens.delete(tokenHash);
          const user = await authenticateToken(options.prisma, token);
          remember(tokenHash, user.id);
          // The request's user now, so the error handler answers the 429 without verifying and counting again.
          request.user = user;
          throw overLimit;
        }
      }
      request.countedBeforeVerifying = true;
      return { tokenHash };
    },
    forgetToken(request) {
      if (request.unverifiedToken !== undefined) usersOfTokens.delete(hashApiToken(request.unverifiedToken));
    },
    handler: async (request, response, next) => {
      if (request.user === undefined && request.unverifiedToken !== undefined) return next();
      await count(currentUser(request).id, response);
      next();
    },
  };
}
