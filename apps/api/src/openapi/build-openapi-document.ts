import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { type ApiRouteGroup, BEARER_SCHEME, QUERY_TOKEN_SCHEME, registerRoutes } from "../http/api-routes.ts";
import { RUN_WEBSOCKET_PATH } from "../realtime/run-websocket.ts";
import { errorResponseSchema } from "../schemas/error-schemas.ts";

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

const DESCRIPTION = `The HTTP API of agentq: durable LLM agent runs with human approval of risky tool calls.

Authentication: \`Authorization: Bearer <token>\` on every \`/api\` request except this document. Times are ISO-8601 UTC,
field names snake_case, ids opaque. Every non-2xx answer has the body \`{"error": {"code", "message", "details"?}}\`; someone
else's resource is answered exactly like a missing one (\`404 not_found\`). Any route may also answer \`500 internal_error\`
(with \`details.request_id\`) or \`503 unavailable\` (Postgres or Redis unreachable).

Following a run live: either the WebSocket \`GET /api/ws\` (see that path) or \`GET /api/runs/{id}/events\` with
\`Accept: text/event-stream\` (server-sent events). Both replay the durable events after the seq the client gives, then pass
live ones on, with no gap and no repeat.`;

const WEBSOCKET_DESCRIPTION = `Upgrade to a WebSocket (a browser passes the token as \`?token=<token>\`: it cannot set headers there;
a missing or bad token refuses the upgrade with 401). Messages are JSON text frames.

Client → server:
- \`{"type": "subscribe", "run_id": "...", "after": <seq>?}\`: the run's durable events with seq > after (default 0), replayed, then live
- \`{"type": "unsubscribe", "run_id": "..."}\`

Server → client:
- \`{"type": "event", "run_id", "event": Event}\` for every durable event (no gaps, no repeats; see the \`Event\` schema)
- \`{"type": "delta", "run_id", "text"}\`: model text as it streams (live only, never replayed)
- \`{"type": "error", "code", "run_id"?, "message"?}\`: \`not_found\` (a run the caller may not see), \`invalid_request\`, \`unavailable\`,
  \`unauthorized\` (the token stopped working since the upgrade: its user was disabled or it was replaced; checked at each
  subscribe and every 30 s), after which the server closes the socket with code 4401

On a reconnect, subscribe again with \`after\` = the last seq seen: every event arrives exactly once.`;

/**
 * The OpenAPI 3.1 document of every `/api` route in `groups`, from the zod schemas the routes are
 * validated with. The WebSocket is described in prose (OpenAPI cannot type its messages).
 */
export function buildOpenApiDocument(groups: readonly ApiRouteGroup[]): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", BEARER_SCHEME, { type: "http", scheme: "bearer", description: "an API token" });
  registry.registerComponent("securitySchemes", QUERY_TOKEN_SCHEME, {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "the same token in the URL, only where a browser cannot set headers (WebSocket, EventSource)",
  });
  registerRoutes(registry, groups);
  registry.registerPath({
    method: "get",
    path: RUN_WEBSOCKET_PATH,
    operationId: "openRunWebSocket",
    summary: "Follow runs live over a WebSocket",
    description: WEBSOCKET_DESCRIPTION,
    tags: ["runs"],
    security: [{ [BEARER_SCHEME]: [] }, { [QUERY_TOKEN_SCHEME]: [] }],
    responses: {
      101: { description: "switching to the WebSocket protocol" },
      401: { description: "`unauthorized`: the token is missing or not valid", content: { "application/json": { schema: errorResponseSchema } } },
      503: { description: "`unavailable`: the token could not be checked right now", content: { "application/json": { schema: errorResponseSchema } } },
    },
    request: { query: z.object({ token: z.string().optional().meta({ description: "the API token (instead of the Authorization header)" }) }) },
  });
  return new OpenApiGeneratorV31(registry.definitions, { sortComponents: "alphabetically" }).generateDocument({
    openapi: "3.1.0",
    info: { title: "agentq", version: "1", description: DESCRIPTION },
    tags: groups.map((group) => ({ name: group.tag, description: group.description })),
  });
}
