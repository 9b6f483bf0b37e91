import { runServiceProcess } from "@agentq/core";
import type { Tracing } from "@agentq/tracing";
import { parseWorkerConfig } from "./config.ts";
import { startRunWorker } from "./run-worker.ts";

/** One worker process (main.ts). SIGTERM/SIGINT stop it gracefully. */
export async function runWorkerProcess(tracing: Tracing): Promise<void> {
  await runServiceProcess({
    name: "agentq-worker",
    label: "the worker",
    parseConfig: () => parseWorkerConfig(process.env),
    start: (config, logger) => startRunWorker({ config, logger, processEnvironment: process.env, queueTelemetry: tracing.queueTelemetry }),
    tracing,
    stoppingMessage: "stopping worker: runs in progress are handed back at their next committed point",
    stopFailedMessage: "worker did not stop cleanly",
  });
}
