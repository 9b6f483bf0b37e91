import express, { type Express } from "express";
import { API_ROUTE_GROUPS } from "./api-route-groups.ts";
import type { ApiDependencies } from "./api-dependencies.ts";
import { measureRequests } from "./http/api-metrics.ts";
import { authenticate } from "./http/authenticate.ts";
import { rateLimit } from "./http/rate-limit.ts";
import { unreachableDependencies } from "./check-readiness.ts";
import { serveConsole } from "./console/serve-console.ts";
import { installRoutes, queryTokenPathPatterns } from "./http/api-routes.ts";
import { errorHandler, notFoundHandler } from "./http/error-handler.ts";
import { jsonBody } from "./http/json-body.ts";
import { refuseNulInPath } from "./http/refuse-nul-in-path.ts";
import { requestLogger } from "./http/request-logger.ts";
import { queueBoard } from "./queue-board/mount-queue-board.ts";
import { operationsRouter } from "./routes/operations.ts";

export function createApp(dependencies: ApiDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  // Routes are matched exactly: /api/me/ and /API/me are not /api/me.
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  app.use(requestLogger(dependencies.logger));
  app.use(measureRequests(dependencies.metrics));
  app.use(operationsRouter(dependencies));
  app.use(serveConsole(dependencies.config.consoleDirectory));
  app.use(installRoutes(API_ROUTE_GROUPS, dependencies, "public"));

  app.use("/api", authenticate(dependencies.prisma, { queryTokenPaths: queryTokenPathPatterns(API_ROUTE_GROUPS, "/api") }));
  app.use("/api", refuseNulInPath());
  app.use(
    "/api",
    rateLimit({ prisma: dependencies.prisma, redis: dependencies.redis, keyPrefix: dependencies.config.queuePrefix, logger: dependencies.logger }),
  );
  app.use(jsonBody(dependencies.config.bodyLimitBytes));
  app.use(installRoutes(API_ROUTE_GROUPS, dependencies, "authenticated"));
  app.use(queueBoard(dependencies));

  app.use(notFoundHandler());
  app.use(errorHandler({ probeDependencies: () => unreachableDependencies(dependencies) }));
  return app;
}
