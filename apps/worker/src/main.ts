// `npm run start:worker`. Tracing starts before the worker is imported: its instrumentations patch
// pg and ioredis as they load (and it loads nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
import { startTracing } from "@agentq/tracing";

const tracing = await startTracing({ serviceName: "agentq-worker", environment: process.env });
const { runWorkerProcess } = await import("./run-worker-process.ts");
await runWorkerProcess(tracing);
