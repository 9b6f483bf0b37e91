import { pingDatabase, type PrismaClient } from "@agentq/core";
import { checkEvictionPolicy, type EvictionPolicyCheck, type RedisClient } from "@agentq/queue";
import type { Dependency } from "./http/dependency-outage.ts";
import { withDeadline } from "./with-deadline.ts";

export interface DependencyCheck {
  status: "ok" | "failed";
  duration_ms: number;
  error?: string;
}

/** Redis' `maxmemory-policy`: `failed` when it may evict, `unknown` when the server will not say. */
export interface EvictionCheck {
  status: "ok" | "failed" | "unknown";
  policy?: string;
  error?: string;
}

export interface Readiness {
  ready: boolean;
  checks: { postgres: DependencyCheck; redis: DependencyCheck; redis_eviction_policy: EvictionCheck };
}

async function timed(timeoutMs: number, probe: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await withDeadline(probe(), timeoutMs, () => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
    return { status: "ok", duration_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: "failed",
      duration_ms: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** SELECT 1 on Postgres and PING on Redis, in parallel, each bounded by `timeoutMs`. */
function checkReachability(dependencies: { prisma: PrismaClient; redis: RedisClient; timeoutMs: number }): Promise<[DependencyCheck, DependencyCheck]> {
  return Promise.all([timed(dependencies.timeoutMs, () => pingDatabase(dependencies.prisma)), timed(dependencies.timeoutMs, () => dependencies.redis.ping())]);
}

/** Readiness' view of Redis' eviction policy: only an evicting Redis fails. */
function evictionCheckOf(eviction: EvictionPolicyCheck | undefined): EvictionCheck {
  if (eviction === undefined) return { status: "unknown", error: "Redis did not answer" };
  switch (eviction.status) {
    case "ok":
      return { status: "ok", policy: eviction.policy };
    case "evicting":
      return { status: "failed", policy: eviction.policy, error: eviction.message };
    case "unknown":
      return { status: "unknown", error: eviction.message };
  }
}

/**
 * Postgres and Redis reachable, and Redis' eviction policy, in parallel, each bounded by
 * `timeoutMs`. An evicting Redis is not ready (BullMQ needs noeviction); one that refuses to say
 * (a managed Redis that forbids CONFIG) is reported as `unknown` and does not fail readiness.
 */
export async function checkReadiness(dependencies: { prisma: PrismaClient; redis: RedisClient; timeoutMs: number }): Promise<Readiness> {
  let eviction: EvictionPolicyCheck | undefined;
  const [[postgres, redis]] = await Promise.all([
    checkReachability(dependencies),
    timed(dependencies.timeoutMs, async () => {
      eviction = await checkEvictionPolicy(dependencies.redis);
    }),
  ]);
  const evictionCheck = evictionCheckOf(redis.status === "ok" ? eviction : undefined);
  return {
    ready: postgres.status === "ok" && redis.status === "ok" && evictionCheck.status !== "failed",
    checks: { postgres, redis, redis_eviction_policy: evictionCheck },
  };
}

/** How long a failed request waits for the probe that names the dependency that is down. */
const OUTAGE_PROBE_TIMEOUT_MS = 1000;

/** The dependencies that do not answer now (for answering a failed request with `503 unavailable`). */
export async function unreachableDependencies(dependencies: {
  prisma: PrismaClient;
  redis: RedisClient;
  config: { readinessTimeoutMs: number };
}): Promise<Dependency[]> {
  // Reachability only: a failed request has no use for the eviction policy.
  const [postgres, redis] = await checkReachability({
    prisma: dependencies.prisma,
    redis: dependencies.redis,
    timeoutMs: Math.min(dependencies.config.readinessTimeoutMs, OUTAGE_PROBE_TIMEOUT_MS),
  });
  const checks = { postgres, redis };
  return (["postgres", "redis"] as const).filter((name) => checks[name].status === "failed");
}
