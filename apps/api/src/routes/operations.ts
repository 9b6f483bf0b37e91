import { Router } from "express";
import type { ApiDependencies } from "../api-dependencies.ts";
import { checkReadiness } from "../check-readiness.ts";

/** Probes and metrics: unauthenticated, outside /api. */
export function operationsRouter(dependencies: ApiDependencies): Router {
  const router = Router();

  // Liveness: answers as long as the process can serve HTTP at all.
  router.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });

  router.get("/readyz", async (_request, response) => {
    const readiness = await checkReadiness({
      prisma: dependencies.prisma,
      redis: dependencies.redis,
      timeoutMs: dependencies.config.readinessTimeoutMs,
    });
    // The API itself needs no sandbox: an unavailable one does not fail readiness, it is explained.
    const sandbox = dependencies.runs.sandbox;
    const processSandbox = sandbox.available
      ? { status: sandbox.sandbox.mode === "off" ? "off" : "ok", enforcement: sandbox.sandbox.enforcement }
      : { status: "unavailable", error: sandbox.reason };
    const details = sandbox.available ? {} : { details: { process_sandbox: `process tools are not offered: ${sandbox.reason}` } };
    if (readiness.ready) {
      response.json({ status: "ready", checks: { ...readiness.checks, process_sandbox: processSandbox }, ...details });
      return;
    }
    const failed = Object.entries(readiness.checks)
      .filter(([, check]) => check.status === "failed")
      .map(([name]) => name);
    const unreachable = failed.filter((name) => name !== "redis_eviction_policy");
    const reasons = [
      ...(unreachable.length > 0 ? [`${unreachable.join(" and ")} unreachable`] : []),
      ...(readiness.checks.redis_eviction_policy.status === "failed" ? [readiness.checks.redis_eviction_policy.error] : []),
    ];
    response.status(503).json({
      error: {
        code: "service_unavailable",
        message: `not ready: ${reasons.join("; ")}`,
        details: { failed, checks: readiness.checks },
      },
      status: "not_ready",
      checks: { ...readiness.checks, process_sandbox: processSandbox },
      ...details,
    });
  });

  router.get("/metrics", async (_request, response) => {
    response.type(dependencies.metrics.registry.contentType).send(await dependencies.metrics.registry.metrics());
  });

  return router;
}
