import type { RequestHandler } from "express";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

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
