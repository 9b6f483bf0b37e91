import express, { type Express } from "express";
import { API_ROUTE_GROUPS } from "./api-route-groups.ts";
import type { ApiDependencies } from "./api-dependencies.ts";
import { measureRequests } from "./http/api-metrics.ts";
import { authenticate, authenticateToken } from "./http/authenticate.ts";
import { rateLimit } from "./http/rate-limit.ts";
import { unreachableDependencies } from "./check-readiness.ts";
import { CONSOLE_PATH, serveConsole } from "./console/serve-console.ts";
import { installRoutes, queryTokenPathPatterns, tokenVerifyingRoutes } from "./http/api-routes.ts";
import { errorHandler, notFoundHandler } from "./http/error-handler.ts";
import { jsonBody } from "./http/json-body.ts";
import { refuseNulInPath } from "./http/refuse-nul-in-path.ts";
import { requestLogger } from "./http/request-logger.ts";
import { leadingSegments } from "./http/leading-segments.ts";
import { firstSegmentsOfRoutes, whenFirstSegmentIs } from "./http/dispatch-by-segments.ts";
import { QUEUE_BOARD_PATH, queueBoard } from "./queue-board/mount-queue-board.ts";
import { operationsRouter } from "./routes/operations.ts";

export function createApp(dependencies: ApiDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  // The app's own layers match case-sensitively (/API/me does not pass through authenticate). The
  // routers made with a bare Router() (probes, API routes, queue board) keep express's defaults, case
  // ignored and a trailing slash allowed (/api/me/ answers as /api/me): only the console's is strict.
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  app.use(requestLogger(dependencies.logger));
  app.use(measureRequests(dependencies.metrics));
  // Each router is entered only by requests under its own first segment (an /api request used to
  // walk the probes', the console's and the queue board's routers too), compared as that router
  // matches: Router() ignores case, the console's router does not. installRoutes does the same
  // with the first two segments of the API's paths.
  const operations = operationsRouter(dependencies);
  app.use(whenFirstSegmentIs(firstSegmentsOfRoutes(operations), operations, { caseSensitive: false }));
  app.use(whenFirstSegmentIs(["", leadingSegments(CONSOLE_PATH, 1)], serveConsole(dependencies.config.consoleDirectory), { caseSensitive: true }));
  app.use(installRoutes(API_ROUTE_GROUPS, dependencies, "public"));

  app.use(
    "/api",
    authenticate(dependencies.prisma, {
      queryTokenPaths: queryTokenPathPatterns(API_ROUTE_GROUPS, "/api"),
      tokenVerifyingRoutes: tokenVerifyingRoutes(API_ROUTE_GROUPS, "/api"),
    }),
  );
  app.use("/api", refuseNulInPath());
  const limit = rateLimit({ prisma: dependencies.prisma, redis: dependencies.redis, keyPrefix: dependencies.config.queuePrefix, logger: dependencies.logger });
  app.use("/api", limit.handler);
  app.use(jsonBody(dependencies.config.bodyLimitBytes));
  app.use(installRoutes(API_ROUTE_GROUPS, dependencies, "authenticated", { admitUser: limit.admit, callerForWrite: limit.callerForWrite }));
  app.use(whenFirstSegmentIs([leadingSegments(QUEUE_BOARD_PATH, 1)], queueBoard(dependencies), { caseSensitive: false }));

  app.use(notFoundHandler());
  app.use(
    errorHandler({
      probeDependencies: () => unreachableDependencies(dependencies),
      verifyUnverifiedCaller: async (request, response) =>
        limit.admit(request, response, await authenticateToken(dependencies.prisma, request.unverifiedToken)),
      onUnverifiedTokenRefused: limit.forgetToken,
    }),
  );
  return app;
}
