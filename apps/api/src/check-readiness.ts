import type { Redis } from "ioredis";
import type { PrismaClient } from "@agentq/core/store/create-prisma-client";
import type { Dependency } from "./http/dependency-outage.ts";

export interface DependencyCheck {
  status: "ok" | "failed";
  duration_ms: number;
  error?: string;
}

export interface Readiness {
  ready: boolean;
  checks: { postgres: DependencyCheck; redis: DependencyCheck };
}

async function timed(timeoutMs: number, probe: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
    return { status: "ok", duration_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: "failed",
      duration_ms: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** SELECT 1 on Postgres and PING on Redis, in parallel, each bounded by `timeoutMs`. */
export async function checkReadiness(dependencies: { prisma: PrismaClient; redis: Redis; timeoutMs: number }): Promise<Readiness> {
  const [postgres, redis] = await Promise.all([
    timed(dependencies.timeoutMs, () => dependencies.prisma.$queryRaw`SELECT 1`),
    timed(dependencies.timeoutMs, () => dependencies.redis.ping()),
  ]);
  return { ready: postgres.status === "ok" && redis.status === "ok", checks: { postgres, redis } };
}

/** How long a failed request waits for the probe that names the dependency that is down. */
const OUTAGE_PROBE_TIMEOUT_MS = 1000;

/** The dependencies that do not answer now (for answering a failed request with `503 unavailable`). */
export async function unreachableDependencies(dependencies: { prisma: PrismaClient; redis: Redis; config: { readinessTimeoutMs: number } }): Promise<Dependency[]> {
  const { checks } = await checkReadiness({
    prisma: dependencies.prisma,
    redis: dependencies.redis,
    timeoutMs: Math.min(dependencies.config.readinessTimeoutMs, OUTAGE_PROBE_TIMEOUT_MS),
  });
  return (["postgres", "redis"] as const).filter((name) => checks[name].status === "failed");
}
