import { createLogger, describeStartupFailure } from "@agentq/core";
import type { Tracing } from "@agentq/tracing";
import { parseWorkerConfig, type WorkerConfig } from "./config.ts";
import { type RunWorker, startRunWorker } from "./run-worker.ts";

/** One worker process (main.ts). SIGTERM/SIGINT stop it gracefully. */
export async function runWorkerProcess(tracing: Tracing): Promise<void> {
  let config: WorkerConfig;
  try {
    config = parseWorkerConfig(process.env);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const logger = createLogger({ level: config.logLevel, name: "agentq-worker" });
  let worker: RunWorker;
  try {
    worker = await startRunWorker({
      config,
      logger,
      processEnvironment: process.env,
      queueTelemetry: tracing.queueTelemetry,
    });
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    logger.fatal({ variables: failure.variables }, `the worker failed to start: ${failure.message}`);
    process.exit(1);
  }
  if (tracing.enabled) logger.info("exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set)");
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping worker: runs in progress are handed back at their next committed point");
    worker
      .close()
      // The last runs' spans leave before the process does.
      .then(() => tracing.shutdown().catch((error: unknown) => logger.warn({ err: error }, "could not export the last traces")))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "worker did not stop cleanly");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
