import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { cancelRun, getRunView, readRunEvents, requireOwnRun } from "@agentq/core";
import { commandDependencies, type ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";
import { followRun } from "../realtime/follow-run.ts";

const eventsQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,9}$/, "after must be a non-negative whole number (a seq)")
    .transform(Number)
    .optional(),
});

/** Events in one JSON answer. Default 10,000. */
const EVENTS_PAGE_LIMIT = 10_000;

/** SSE comment lines keep proxies from closing an idle stream. Default every 15 s. */
const SSE_HEARTBEAT_MS = 15_000;

export function runsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma } = dependencies;

  router.get("/api/runs/:id", async (request, response) => {
    response.json(await getRunView(prisma, currentUser(request).id, request.params.id));
  });

  router.post("/api/runs/:id/cancel", async (request, response) => {
    const user = currentUser(request);
    await cancelRun(commandDependencies(dependencies), { userId: user.id, runId: request.params.id, reason: "cancelled by the user" });
    response.status(202).json(await getRunView(prisma, user.id, request.params.id));
  });

  router.get("/api/runs/:id/events", async (request, response) => {
    const run = await requireOwnRun(prisma, currentUser(request).id, request.params.id);
    const query = parseRequest(eventsQuery, request.query, "query");
    if (request.accepts(["application/json", "text/event-stream"]) === "text/event-stream" && request.get("accept")?.includes("text/event-stream")) {
      await streamEvents(dependencies, request, response, run.id, lastEventId(request) ?? query.after ?? 0);
      return;
    }
    const { events } = await readRunEvents(prisma, run.id, query.after ?? 0, EVENTS_PAGE_LIMIT + 1);
    // Additive to API.md: a run with more events than one page says so; ask again with after=<last seq>.
    response.json({ events: events.slice(0, EVENTS_PAGE_LIMIT), has_more: events.length > EVENTS_PAGE_LIMIT });
  });

  return router;
}

/** `Last-Event-ID` wins over `?after=` (a reconnecting EventSource sends it). */
function lastEventId(request: Request): number | undefined {
  const header = request.get("last-event-id");
  return header !== undefined && /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) : undefined;
}

async function streamEvents(dependencies: ApiDependencies, _request: Request, response: Response, runId: string, after: number): Promise<void> {
  response.status(200);
  response.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  response.setHeader("Cache-Control", "no-cache, no-transform");
  response.setHeader("Connection", "keep-alive");
  response.setHeader("X-Accel-Buffering", "no");
  response.flushHeaders();
  const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), SSE_HEARTBEAT_MS);
  // Listened for before the first await: a client that leaves while the replay is being read must
  // still stop the follower, or it (and its Redis subscription and heartbeat) would live forever.
  let clientGone = false;
  let follower: { stop(): void } | undefined;
  response.on("close", () => {
    clientGone = true;
    clearInterval(heartbeat);
    follower?.stop();
  });
  try {
    follower = await followRun({
      prisma: dependencies.prisma,
      hub: dependencies.runs.hub,
      runId,
      after,
      onEvent: (event) => response.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`),
      onEnd: () => {
        clearInterval(heartbeat);
        response.end();
      },
    });
  } catch (error) {
    // Headers are sent: the only way left to say "failed" is to close the stream; the client reconnects.
    clearInterval(heartbeat);
    dependencies.logger.warn({ err: error, run_id: runId }, "following a run's events failed");
    response.end();
    return;
  }
  if (clientGone) follower.stop();
}
