import express, { type Express, type Router } from "express";
import type { ApiDependencies } from "./api-dependencies.ts";
import { measureRequests } from "./http/api-metrics.ts";
import { authenticate } from "./http/authenticate.ts";
import { unreachableDependencies } from "./check-readiness.ts";
import { errorHandler, notFoundHandler } from "./http/error-handler.ts";
import { jsonBody } from "./http/json-body.ts";
import { refuseNulInPath } from "./http/refuse-nul-in-path.ts";
import { requestLogger } from "./http/request-logger.ts";
import { operationsRouter } from "./routes/operations.ts";
import { approvalsRouter } from "./routes/approvals.ts";
import { chatsRouter } from "./routes/chats.ts";
import { jobsRouter } from "./routes/jobs.ts";
import { runsRouter } from "./routes/runs.ts";
import { settingsRouter } from "./routes/settings.ts";
import { toolsRouter } from "./routes/tools.ts";
import { usersRouter } from "./routes/users.ts";
import { workspacesRouter } from "./routes/workspaces.ts";

export type RouterFactory = (dependencies: ApiDependencies) => Router;

/**
 * The authenticated API, in one visible list. Each router declares its full paths (`/api/...`), so
 * the metrics' route label is the whole pattern.
 */
export const API_ROUTERS: readonly RouterFactory[] = [
  usersRouter,
  workspacesRouter,
  chatsRouter,
  runsRouter,
  approvalsRouter,
  jobsRouter,
  toolsRouter,
  settingsRouter,
];

export function createApp(dependencies: ApiDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  // Routes are matched exactly: /api/me/ and /API/me are not /api/me.
  app.set("strict routing", true);
  app.set("case sensitive routing", true);

  app.use(requestLogger(dependencies.logger));
  app.use(measureRequests(dependencies.metrics));
  app.use(operationsRouter(dependencies));

  app.use("/api", authenticate(dependencies.prisma));
  app.use("/api", refuseNulInPath());
  app.use(jsonBody(dependencies.config.bodyLimitBytes));
  for (const router of API_ROUTERS) app.use(router(dependencies));

  app.use(notFoundHandler());
  app.use(errorHandler({ probeDependencies: () => unreachableDependencies(dependencies) }));
  return app;
}
