import type { Redis } from "ioredis";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";

/**
 * What Redis says about evicting keys. BullMQ needs `noeviction`: a Redis that may evict drops
 * queue jobs and locks under memory pressure, silently.
 */
export type EvictionPolicyCheck =
  | { status: "ok"; policy: "noeviction" }
  | { status: "evicting"; policy: string; message: string }
  /** The server refused `CONFIG GET` (managed services often do): nothing is known either way. */
  | { status: "unknown"; message: string };

/** Reads `maxmemory-policy` with `CONFIG GET` (on every node of a cluster). */
export async function checkEvictionPolicy(redis: RedisClient): Promise<EvictionPolicyCheck> {
  const nodes: Redis[] = isRedisCluster(redis) ? redis.nodes("master") : [redis];
  let policies: string[];
  try {
    policies = await Promise.all(
      nodes.map(async (node) => {
        const reply = (await node.config("GET", "maxmemory-policy")) as unknown;
        return Array.isArray(reply) && typeof reply[1] === "string" ? reply[1] : "";
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      status: "unknown",
      message: `could not check Redis' maxmemory-policy (CONFIG GET was refused: ${reason}); make sure it is noeviction`,
    };
  }
  const evicting = policies.find((policy) => policy !== "noeviction");
  if (evicting === undefined) return { status: "ok", policy: "noeviction" };
  if (evicting === "") return { status: "unknown", message: "could not check Redis' maxmemory-policy (CONFIG GET gave no value); make sure it is noeviction" };
  return {
    status: "evicting",
    policy: evicting,
    message:
      `Redis' maxmemory-policy is ${evicting}: under memory pressure it evicts keys, and queued runs and their locks would be lost. ` +
      "Set it to noeviction (CONFIG SET maxmemory-policy noeviction, and maxmemory-policy noeviction in redis.conf or your provider's settings)",
  };
}

/**
 * Checks the policy once at process start and says what it found: an evicting Redis is logged as
 * an error (the process goes on: the operator fixes Redis, `/readyz` keeps failing until then).
 */
export async function logEvictionPolicy(
  redis: RedisClient,
  logger: { error(object: Record<string, unknown>, message: string): void; warn(object: Record<string, unknown>, message: string): void },
): Promise<EvictionPolicyCheck> {
  const check = await checkEvictionPolicy(redis);
  if (check.status === "evicting") logger.error({ maxmemory_policy: check.policy }, check.message);
  else if (check.status === "unknown") logger.warn({}, check.message);
  return check;
}
