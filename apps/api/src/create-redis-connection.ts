import { Redis } from "ioredis";
import type { Logger } from "@agentq/core";

/** Reconnection errors repeat every few seconds while Redis is down; log one per this many ms. Default 30 s. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/** An ioredis connection that logs (throttled) instead of crashing on connection errors. */
export function createRedisConnection(redisUrl: string, logger: Logger, connectionName = "agentq-api"): Redis {
  const redis = new Redis(redisUrl, { connectionName });
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

/** QUIT when connected (lets pending replies arrive), otherwise drop the connection at once. */
export async function closeRedisConnection(redis: Redis, timeoutMs = 1000): Promise<void> {
  if (redis.status === "ready") {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      redis.quit().catch(() => undefined),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
  redis.disconnect();
}
