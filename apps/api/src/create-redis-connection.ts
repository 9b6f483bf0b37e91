import type { Logger } from "@agentq/core";
import { createRedis, type RedisClient } from "@agentq/queue";

/** Reconnection errors repeat every few seconds while Redis is down; log one per this many ms. Default 30 s. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * The API's general connection (readiness, the rate limiter, the eviction check): one server or a
 * cluster (createRedis), that logs (throttled) instead of crashing on connection errors. ioredis'
 * default 20 retries with an offline queue: each user of it bounds its own wait.
 */
export function createRedisConnection(redisUrl: string, logger: Logger, connectionName = "agentq-api"): RedisClient {
  const redis = createRedis({ url: redisUrl, maxRetriesPerRequest: 20, offlineQueue: true, connectionName });
  let lastLoggedAt = 0;
  redis.on("error", (error: Error) => {
    const now = Date.now();
    if (now - lastLoggedAt < ERROR_LOG_INTERVAL_MS) return;
    lastLoggedAt = now;
    logger.warn({ err: error }, "redis connection error");
  });
  redis.on("ready", () => {
    if (lastLoggedAt !== 0) logger.info("redis connection restored");
    lastLoggedAt = 0;
  });
  return redis;
}
