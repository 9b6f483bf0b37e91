import { createLogger, describeStartupFailure } from "@agentq/core";
import type { Tracing } from "@agentq/tracing";
import { parseApiConfig, type ApiConfig } from "./config.ts";
import { startApiServer, type ApiServer } from "./server.ts";

/** The API process (main.ts): parse the environment, start the API, stop gracefully on SIGTERM/SIGINT. */
export async function runApiProcess(tracing: Tracing): Promise<void> {
  let config: ApiConfig;
  try {
    config = parseApiConfig(process.env);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }

  let api: ApiServer;
  try {
    api = await startApiServer(config, { queueTelemetry: tracing.queueTelemetry });
  } catch (error) {
    // One JSON line, like every other log line, naming the setting to check.
    const failure = describeStartupFailure(error, config);
    createLogger({ level: config.logLevel, name: "agentq-api" }).fatal({ variables: failure.variables }, `the API failed to start: ${failure.message}`);
    process.exit(1);
  }

  const { logger } = api.dependencies;
  if (tracing.enabled) logger.info("exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set)");
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, "shutting down: finishing in-flight requests");
      api
        .close()
        // The last requests' spans leave before the process does.
        .then(() => tracing.shutdown().catch((error: unknown) => logger.warn({ err: error }, "could not export the last traces")))
        .then(
          () => {
            logger.info("api stopped");
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
    });
  }

  // A bug that escapes every handler leaves the process in an unknown state: log it and exit so the
  // supervisor restarts a clean one.
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "uncaught exception; exiting");
    process.exit(1);
  });
  process.on("unhandledRejection", (reason) => {
    logger.fatal({ err: reason }, "unhandled promise rejection; exiting");
    process.exit(1);
  });
}
