// Redis isolation for tests: every test file uses its own key prefix on the shared server, and
// removes its keys afterwards. Never FLUSHALL/FLUSHDB: other files and runs share the server.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { deleteKeysWithPrefix } from "@agentq/queue";

/** Default: the local server of docs/design.md ("Environment this is built and tested on"). Override with AGENTQ_TEST_REDIS_URL. */
export const TEST_REDIS_URL = process.env.AGENTQ_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** `agentq-test-<12 hex>`; a fixed-length random part, so no prefix is the start of another. */
export function uniqueQueuePrefix(): string {
  return `agentq-test-${randomBytes(6).toString("hex")}`;
}

/** A connection to the test Redis; BullMQ needs `maxRetriesPerRequest: null` on its connections. */
export function createTestRedis(): Redis {
  // The type argument spares the typecheck seconds (createRedis in packages/queue/src/create-redis.ts says why).
  return new Redis<"legacy">(TEST_REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Deletes every key that starts with `prefix` (on one server or every master of a cluster). */
export { deleteKeysWithPrefix };

/**
 * Deletes the keys of `prefix` on the test Redis over a connection of its own, closed afterwards: for
 * a test whose keys were written by processes it started, and which holds no connection itself.
 */
export async function deleteTestKeys(prefix: string): Promise<void> {
  const redis = createTestRedis();
  try {
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
