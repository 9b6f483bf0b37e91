// `npm run start:api`. Tracing starts before the API is imported: its instrumentations patch
// express, pg and ioredis as they load (and it loads nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
import { startTracing } from "@agentq/tracing";

const tracing = await startTracing({ serviceName: "agentq-api", environment: process.env });
const { runApiProcess } = await import("./run-api-process.ts");
await runApiProcess(tracing);
