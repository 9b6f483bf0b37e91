export { parseWorkerConfig, type WorkerConfig } from "./config.ts";
export { startRunWorker, type RunWorker, type StartRunWorkerOptions } from "./run-worker.ts";
