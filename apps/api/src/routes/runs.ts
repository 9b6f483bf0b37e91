import type { Request, Response } from "express";
import { z } from "zod";
import { cancelRun, getRunView, type OwnedRun, readRunEvents, requireOwnRun, UnauthorizedError } from "@agentq/core";
import { commandDependencies, type ApiDependencies } from "../api-dependencies.ts";
import { ANSWERED, defineRoute } from "../http/api-route.ts";
import { authenticateToken, requestToken } from "../http/authenticate.ts";
import { followRun } from "../realtime/follow-run.ts";
import { runBody, runEventsPageSchema, runSchema } from "../schemas/run-schemas.ts";

const eventsQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,9}$/, "after must be a non-negative whole number (a seq)")
    .transform(Number)
    .optional()
    .meta({ description: "the last seq the client has seen (default 0: from the start)" }),
});

/** Events in one JSON answer. Default 10,000. */
const EVENTS_PAGE_LIMIT = 10_000;

const RUN_ID = "the run's id";

export const runRoutes = [
  defineRoute({
    method: "get",
    path: "/api/runs/:id",
    operationId: "getRun",
    summary: "A run",
    parameters: { id: RUN_ID },
    responses: { 200: { description: "the run", schema: runSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: runBody(await getRunView(dependencies.prisma, user.id, params.id)) }),
  }),
  defineRoute({
    method: "post",
    path: "/api/runs/:id/cancel",
    operationId: "cancelRun",
    summary: "Cancel a run",
    description: "Its open tool calls get results and its pending approvals are withdrawn.",
    parameters: { id: RUN_ID },
    responses: { 202: { description: "the run as the cancel left it", schema: runSchema } },
    errors: { 409: "`run_finished`: the run has already finished" },
    handler: async ({ dependencies, user, params }) => {
      await cancelRun(commandDependencies(dependencies), { userId: user.id, runId: params.id, reason: "cancelled by the user" });
      return { status: 202, body: runBody(await getRunView(dependencies.prisma, user.id, params.id)) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/runs/:id/events",
    operationId: "listRunEvents",
    summary: "A run's durable events (JSON, or a server-sent event stream)",
    description:
      "With `Accept: text/event-stream` the same endpoint streams the events as server-sent events: `id:` is the seq, `data:` the Event JSON; " +
      "`Last-Event-ID` wins over `after`; replayed events come first, then live ones, and the stream closes after the run finishes. " +
      "An EventSource cannot set headers: it may pass the token as `?token=`.",
    queryToken: true,
    parameters: { id: RUN_ID },
    query: eventsQuery,
    responses: {
      200: {
        description: "the events with `seq > after`, in order",
        schema: runEventsPageSchema,
        alternatives: {
          "text/event-stream": { schema: z.string().meta({ description: "`id: <seq>` and `data: <Event JSON>` per event; `: keep-alive` comments" }) },
        },
      },
    },
    handler: async ({ dependencies, user, params, query, request, response }) => {
      const run = await requireOwnRun(dependencies.prisma, user.id, params.id);
      if (request.accepts(["application/json", "text/event-stream"]) === "text/event-stream" && request.get("accept")?.includes("text/event-stream")) {
        await streamEvents(dependencies, request, response, { id: run.id, userId: user.id }, lastEventId(request) ?? query.after ?? 0);
        return ANSWERED;
      }
      const { events } = await readRunEvents(dependencies.prisma, run.id, query.after ?? 0, EVENTS_PAGE_LIMIT + 1);
      // Additive to API.md: a run with more events than one page says so; ask again with after=<last seq>.
      return { status: 200, body: { events: events.slice(0, EVENTS_PAGE_LIMIT), has_more: events.length > EVENTS_PAGE_LIMIT } };
    },
  }),
];

/** `Last-Event-ID` wins over `?after=` (a reconnecting EventSource sends it). */
function lastEventId(request: Request): number | undefined {
  const header = request.get("last-event-id");
  return header !== undefined && /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) : undefined;
}

async function streamEvents(dependencies: ApiDependencies, request: Request, response: Response, run: OwnedRun, after: number): Promise<void> {
  response.status(200);
  response.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  response.setHeader("Cache-Control", "no-cache, no-transform");
  response.setHeader("Connection", "keep-alive");
  response.setHeader("X-Accel-Buffering", "no");
  response.flushHeaders();
  const token = requestToken(request, true);
  // SSE comment lines keep proxies from closing an idle stream (ApiConfig.sseHeartbeatMs, default 15 s).
  const heartbeat = setInterval(() => {
    response.write(": keep-alive\n\n");
    // A token that stopped working since (its user disabled, or the token replaced) ends the stream,
    // and the client's reconnection gets its 401. An outage is not a revoked token: the stream goes on.
    authenticateToken(dependencies.prisma, token).catch((error: unknown) => {
      if (error instanceof UnauthorizedError) response.end();
    });
  }, dependencies.config.sseHeartbeatMs);
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
      runId: run.id,
      userId: run.userId,
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
    dependencies.logger.warn({ err: error, run_id: run.id }, "following a run's events failed");
    response.end();
    return;
  }
  if (clientGone) follower.stop();
}
