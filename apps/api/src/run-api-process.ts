import { runServiceProcess } from "@agentq/core";
import type { Tracing } from "@agentq/tracing";
import { parseApiConfig } from "./config.ts";
import { startApiServer } from "./server.ts";

/** The API process (main.ts): parse the environment, start the API, stop gracefully on SIGTERM/SIGINT. */
export async function runApiProcess(tracing: Tracing): Promise<void> {
  await runServiceProcess({
    name: "agentq-api",
    label: "the API",
    parseConfig: () => parseApiConfig(process.env),
    start: (config) => startApiServer(config, { queueTelemetry: tracing.queueTelemetry }),
    loggerOf: (api) => api.dependencies.logger,
    tracing,
    stoppingMessage: "shutting down: finishing in-flight requests",
    stoppedMessage: "api stopped",
    stopFailedMessage: "shutdown failed",
    exitOnUncaughtErrors: true,
  });
}
