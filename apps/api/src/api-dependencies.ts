import { generateId, type Logger, type PrismaClient, type RunCommandDependencies, systemClock } from "@agentq/core";
import type { RedisClient } from "@agentq/queue";
import type { BackgroundWork } from "./background-work.ts";
import type { ApiConfig } from "./config.ts";
import type { ApiMetrics } from "./http/api-metrics.ts";
import type { RunServices } from "./run-services.ts";

/** Everything the routes need, in one typed object (add new services here, not as globals). */
export interface ApiDependencies {
  config: ApiConfig;
  prisma: PrismaClient;
  /** General-purpose connection (commands, publishing): one server or a cluster. Subscribers need their own connection. */
  redis: RedisClient;
  logger: Logger;
  metrics: ApiMetrics;
  /** Queue, live fan-out, tools and the approval key: what the run routes and the WebSocket use. */
  runs: RunServices;
  /** Work a request started that outlives its answer; shutdown waits for it (up to SHUTDOWN_TIMEOUT). */
  background: BackgroundWork;
}

/** What the run commands of core need (packages/core/src/runs/run-commands.ts), from the API's services. */
export function commandDependencies(dependencies: ApiDependencies): RunCommandDependencies {
  return { prisma: dependencies.prisma, clock: systemClock, generateId, logger: dependencies.logger, afterCommit: dependencies.runs };
}
