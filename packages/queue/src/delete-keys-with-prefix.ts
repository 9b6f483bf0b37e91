import type { Redis } from "ioredis";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";

/**
 * Deletes every key that starts with `prefix` (SCAN + UNLINK in batches) and returns how many it
 * deleted: a throwaway deployment's keys (tests, the benchmark). Glob characters in the prefix are
 * escaped, so it matches literally. On a cluster each master scans its own slots.
 */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  if (prefix === "") throw new Error("refusing to delete keys with an empty prefix (that would be every key)");
  const pattern = `${prefix.replace(/[\\*?[\]]/g, "\\$&")}*`;
  if (isRedisCluster(redis)) {
    const counts = await Promise.all(redis.nodes("master").map((node) => deleteMatching(node, pattern, true)));
    return counts.reduce((sum, count) => sum + count, 0);
  }
  return deleteMatching(redis, pattern, false);
}

/** `oneByOne`: a node of a cluster, where one UNLINK may not name keys of different slots. */
async function deleteMatching(redis: Redis, pattern: string, oneByOne: boolean): Promise<number> {
  let deleted = 0;
  let cursor = "0";
  do {
    const [nextCursor, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = nextCursor;
    if (keys.length === 0) continue;
    if (oneByOne) for (const key of keys) deleted += await redis.unlink(key);
    else deleted += await redis.unlink(...keys);
  } while (cursor !== "0");
  return deleted;
}
