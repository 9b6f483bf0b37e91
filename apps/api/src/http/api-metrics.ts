import type { RequestHandler } from "express";
import { collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { QueueCounts } from "@agentq/core";

export interface ApiMetrics {
  /** One registry per app instance (not prom-client's global one), so tests can run several apps. */
  registry: Registry;
  httpRequestDuration: Histogram<"method" | "route" | "status_code">;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Duration of HTTP requests, by method, route pattern and status code",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return { registry, httpRequestDuration };
}

/** Name of the queue-depth gauge: what an autoscaler of the workers reads (docs/operations.md). */
const QUEUE_JOBS_METRIC = "agentq_queue_jobs";

/**
 * `agentq_queue_jobs{state="waiting|active|delayed|failed"}`: the run queue's jobs, read from Redis
 * at each scrape (the same counts as GET /api/services). `waiting` is runs ready to start with no
 * worker slot free yet; scale workers on it. When Redis does not answer the gauge is left empty
 * for that scrape rather than repeating stale numbers. Registered once per registry.
 */
export function registerQueueMetrics(metrics: ApiMetrics, queueCounts: () => Promise<QueueCounts>): void {
  if (metrics.registry.getSingleMetric(QUEUE_JOBS_METRIC)) return;
  new Gauge({
    name: QUEUE_JOBS_METRIC,
    help: "Jobs of the run queue by state (waiting: runs ready to start that no worker has taken yet)",
    labelNames: ["state"] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      try {
        const counts = await queueCounts();
        for (const state of ["waiting", "active", "delayed", "failed"] as const) this.set({ state }, counts[state]);
      } catch {
        // Redis unreachable: no sample this time (readiness says why).
      }
    },
  });
}

/**
 * Observes every request. The route label is the matched pattern (`/api/workspaces/:id`), never
 * the raw URL, so ids cannot blow up the series count; requests no route matched are `unmatched`.
 */
export function measureRequests(metrics: ApiMetrics): RequestHandler {
  return (request, response, next) => {
    const stopTimer = metrics.httpRequestDuration.startTimer();
    response.once("finish", () => {
      const routePath: unknown = request.route?.path;
      const route = typeof routePath === "string" ? request.baseUrl + routePath : "unmatched";
      stopTimer({ method: request.method, route, status_code: String(response.statusCode) });
    });
    next();
  };
}
