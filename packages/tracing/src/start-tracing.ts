import { register } from "node:module";
import type { Telemetry } from "bullmq";
import { isTracingEnabled } from "./is-tracing-enabled.ts";

export interface StartTracingOptions {
  /** service.name of the process's spans, unless OTEL_SERVICE_NAME names another: `agentq-api`, `agentq-worker`. */
  serviceName: string;
  /** The process environment: OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on; the SDK reads the other OTEL_* variables itself. */
  environment: Readonly<Record<string, string | undefined>>;
}

export interface Tracing {
  enabled: boolean;
  /** BullMQ's telemetry for the run queue's Queue and Worker (carries the trace across the queue); undefined when off. */
  queueTelemetry: Telemetry | undefined;
  /** Exports the spans still buffered and stops the SDK; nothing to do when off. Call before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * Modules whose instrumentation patches them as they are imported. Only these go through the ESM
 * hook (import-in-the-middle): wrapping every module would put each of the application's chunks and
 * packages through a second loader for nothing.
 */
const INSTRUMENTED_MODULES = ["express", "pg", "ioredis", "http", "https", "node:http", "node:https"];

/** Requests that are not work: probes and scrapes, every few seconds, would bury the traces of runs. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Query parameters whose value a server span shows as REDACTED: `token` (the WebSocket and the event
 * stream take the API token as `?token=`), then the instrumentation's own list, which this replaces.
 */
const REDACTED_QUERY_PARAMETERS = [
  "token",
  "sig",
  "Signature",
  "AWSAccessKeyId",
  "X-Goog-Signature",
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
];

const OFF: Tracing = { enabled: false, queueTelemetry: undefined, shutdown: async () => undefined };

/**
 * Starts OpenTelemetry for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set, and does nothing
 * otherwise: the SDK and the instrumentations are imported only then, so a process without tracing
 * loads none of them and agentq's own spans (packages/core, @opentelemetry/api) are no-ops.
 *
 * Call it first in a process's entry point and import the application after it (dynamically): the
 * instrumentations of express, pg and ioredis patch those modules when they load, so they must be
 * registered before anything imports them.
 */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  if (!isTracingEnabled(options.environment)) return OFF;

  // The ESM loader hook first, so that the imports below and the application's go through it.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: INSTRUMENTED_MODULES } });

  const [
    { NodeSDK },
    { HttpInstrumentation },
    { ExpressInstrumentation, ExpressLayerType },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { BullMQOtel },
  ] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-express"),
    import("@opentelemetry/instrumentation-pg"),
    import("@opentelemetry/instrumentation-ioredis"),
    import("bullmq-otel"),
  ]);

  const sdk = new NodeSDK({
    serviceName: options.environment.OTEL_SERVICE_NAME?.trim() || options.serviceName,
    // Traces only: metrics are on GET /metrics (Prometheus) and logs go to stdout as JSON lines.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? "").split("?")[0] ?? ""),
        redactedQueryParamsServer: REDACTED_QUERY_PARAMETERS,
      }),
      // Routers and handlers only: a span for each of the dozen middlewares every request passes
      // (logging, JSON, auth, rate limit) would bury the route; their I/O shows as pg and ioredis spans.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Only inside a trace: the lease heartbeat and the reconciler's sweeps query every second and
      // would otherwise each start a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: arguments carry run events, prompts and tool output.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();

  return {
    enabled: true,
    // BullMQ's spans under their own instrumentation scope ("bullmq"); agentq's are under "agentq".
    queueTelemetry: new BullMQOtel(),
    shutdown: () => sdk.shutdown(),
  };
}
