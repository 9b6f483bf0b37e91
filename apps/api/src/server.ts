import { createServer, STATUS_CODES, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Telemetry } from "bullmq";
import type { DestinationStream } from "pino";
import { bootstrapAdmin, createLogger, createPrismaClient } from "@agentq/core";
import { logEvictionPolicy, quitOrDisconnect } from "@agentq/queue";
import type { ApiDependencies } from "./api-dependencies.ts";
import { createApp } from "./app.ts";
import type { ApiConfig } from "./config.ts";
import { createRedisConnection } from "./create-redis-connection.ts";
import { createApiMetrics, registerQueueMetrics } from "./http/api-metrics.ts";
import { attachRunWebSocket } from "./realtime/run-websocket.ts";
import { createRunServices } from "./run-services.ts";
import { BackgroundWork } from "./background-work.ts";
import { withDeadline } from "./with-deadline.ts";

export interface StartApiServerOverrides extends Partial<ApiDependencies> {
  /** Where log lines go when no `logger` is given. Default stdout. */
  logDestination?: DestinationStream;
  /** BullMQ's telemetry when the process traces (main.ts, @agentq/tracing); unused when `runs` is given. Default none. */
  queueTelemetry?: Telemetry;
}

export interface ApiServer {
  /** `http://host:port`, reachable from this machine. */
  url: string;
  port: number;
  /** The HTTP server (attach the WebSocket upgrade handler here). */
  server: Server;
  dependencies: ApiDependencies;
  /** Graceful stop: refuse new connections, let in-flight requests finish (up to `shutdownTimeoutMs`), close Prisma and Redis. */
  close(): Promise<void>;
}

/**
 * Answers requests the HTTP parser refuses before express sees them (oversized headers, garbage)
 * with the API's JSON error shape instead of Node's empty default.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify({
    error:
      status === 431
        ? { code: "headers_too_large", message: "the request headers are too large" }
        : { code: "invalid_request", message: status === 408 ? "the request took too long to arrive" : "the request is not valid HTTP" },
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Builds the dependencies (unless given), makes sure the admin user exists, and listens.
 * Dependencies passed in `overrides` belong to the caller and are not closed by `close()`.
 */
export async function startApiServer(config: ApiConfig, overrides: StartApiServerOverrides = {}): Promise<ApiServer> {
  const logger =
    overrides.logger ??
    createLogger({
      level: config.logLevel,
      name: "api",
      secrets: [config.adminToken, config.approvalSecret, config.openaiApiKey, config.anthropicApiKey],
      ...(overrides.logDestination === undefined ? {} : { destination: overrides.logDestination }),
    });
  const prisma = overrides.prisma ?? createPrismaClient({ databaseUrl: config.databaseUrl });
  const redis = overrides.redis ?? createRedisConnection(config.redisUrl, logger);
  let runs: ApiDependencies["runs"];
  try {
    runs = overrides.runs ?? (await createRunServices({ config, prisma, logger, queueTelemetry: overrides.queueTelemetry }));
  } catch (error) {
    if (overrides.prisma === undefined) await prisma.$disconnect();
    if (overrides.redis === undefined) await quitOrDisconnect(redis, { logger });
    throw error;
  }
  const dependencies: ApiDependencies = {
    config,
    prisma,
    redis,
    logger,
    metrics: overrides.metrics ?? createApiMetrics(),
    runs,
    background: new BackgroundWork(),
  };
  registerQueueMetrics(dependencies.metrics, () => runs.queueCounts());
  let websocket: { close(): void } | undefined;
  const closeOwnedClients = async () => {
    websocket?.close();
    if (overrides.runs === undefined) await runs.close();
    if (overrides.prisma === undefined) await prisma.$disconnect();
    if (overrides.redis === undefined) await quitOrDisconnect(redis, { logger });
  };

  let server: Server;
  try {
    const bootstrap = await bootstrapAdmin(prisma, { adminToken: config.adminToken });
    if (bootstrap.generatedToken !== undefined) {
      // The one deliberate exception to redaction, logged once: the instance that created `admin`.
      logger.warn(`bootstrap admin token: ${bootstrap.generatedToken} (shown once; set ADMIN_TOKEN or keep this token)`);
    }
    server = createServer(createApp(dependencies));
    server.on("clientError", answerClientError);
    websocket = attachRunWebSocket(server, dependencies);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await closeOwnedClients();
    throw error;
  }

  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.host, port }, `api listening on ${config.host}:${port}`);
  void logEvictionPolicy(redis, logger);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // WebSockets and event streams are long-lived: they are closed first, not waited for.
      websocket?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections with no request in progress would otherwise hold close() open.
      server.closeIdleConnections();
      const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
      const timedOut = await withDeadline(
        closed.then(() => false),
        config.shutdownTimeoutMs,
        () => true,
      );
      if (timedOut) {
        logger.warn({ timeout_ms: config.shutdownTimeoutMs }, "in-flight requests did not finish in time; closing their connections");
        server.closeAllConnections();
        await closed;
      }
      clearInterval(idleSweep);
      // What answered requests started and still run (an email's delivery) finishes before Postgres closes.
      if (dependencies.background.size > 0 && !(await dependencies.background.drain(config.shutdownTimeoutMs))) {
        logger.warn({ timeout_ms: config.shutdownTimeoutMs, still_running: dependencies.background.size }, "background work did not finish in time");
      }
      await closeOwnedClients();
    })();
    return closing;
  };

  return { url: `http://${urlHost(config.host)}:${port}`, port, server, dependencies, close };
}
