import type { Redis } from "ioredis";
import type { Logger } from "@agentq/core/logging/create-logger";
import type { PrismaClient } from "@agentq/core/store/create-prisma-client";
import type { ApiConfig } from "./config.ts";
import type { ApiMetrics } from "./http/api-metrics.ts";
import type { RunServices } from "./run-services.ts";

/** Everything the routes need, in one typed object (add new services here, not as globals). */
export interface ApiDependencies {
  config: ApiConfig;
  prisma: PrismaClient;
  /** General-purpose connection (commands, publishing). Subscribers need their own connection. */
  redis: Redis;
  logger: Logger;
  metrics: ApiMetrics;
  /** Queue, live fan-out, tools and the approval key: what the run routes and the WebSocket use. */
  runs: RunServices;
}
