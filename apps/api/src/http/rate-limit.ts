import type { RequestHandler } from "express";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AgentqError, type Logger, type PrismaClient, recentSettings } from "@agentq/core";
import { type RedisClient, rateLimitKeyPrefix } from "@agentq/queue";
import { currentUser } from "./authenticate.ts";
import { withDeadline } from "../with-deadline.ts";

/**
 * How long a request waits for the limiter's count before going through uncounted. Default 500 ms:
 * while a Redis Cluster fails over the slot's master (seconds), commands wait for the new one, and
 * the limiter must not hold every request of the API that long.
 */
const COUNT_WAIT_MS = 500;

/** Redis errors repeat on every request while it is down: log one per this many ms. Default 30 s. */
const FAILURE_LOG_INTERVAL_MS = 30_000;

export interface RateLimitOptions {
  prisma: PrismaClient;
  redis: RedisClient;
  /** Keys live under `<prefix>:ratelimit:` (QUEUE_PREFIX, like every key agentq creates). */
  keyPrefix: string;
  logger: Logger;
}

/**
 * Per-user request rate limit of the authenticated API (`api_rate_limit_per_minute`, 0 = none), a
 * fixed one-minute window counted in Redis so every API instance shares it. Over it: `429
 * rate_limited` with `Retry-After` (seconds). When Redis does not answer, the limiter fails open:
 * the request goes through (the API's own work needs Postgres, not Redis) and the outage is logged.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
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

  return async (request, response, next) => {
    const user = currentUser(request);
    const points = (await settings()).api_rate_limit_per_minute;
    if (points <= 0) return next();
    try {
      await withDeadline(limiterFor(points).consume(user.id), COUNT_WAIT_MS, () => {
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
    next();
  };
}
