import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiDependencies } from "../api-dependencies.ts";
import { type ApiRoute, defineRoute, type HttpMethod } from "./api-route.ts";
import { type ApiRouteGroup, installRoutes } from "./api-routes.ts";
import { rawRequest } from "../../../../test/support/raw-request.ts";

/** A route that answers with its operation id. */
function route(method: HttpMethod, path: string, operationId: string, access: "public" | "user" = "user"): ApiRoute {
  return defineRoute({
    method,
    path,
    operationId,
    summary: operationId,
    access,
    responses: { 200: { description: "which route answered", schema: z.object({ operation: z.string() }) } },
    handler: () => ({ status: 200, body: { operation: operationId } }),
  });
}

// Shapes of the API's paths: overlapping patterns under one prefix (order matters), a dot in the
// second segment, a wildcard, several methods on one path, a public route among them.
const ROUTES = [
  route("get", "/api/me", "me"),
  route("get", "/api/chats", "listChats"),
  route("post", "/api/chats", "createChat"),
  route("get", "/api/chats/:id", "getChat"),
  route("post", "/api/chats/:id/runs", "startRun"),
  route("get", "/api/chats/:id/runs", "listRuns"),
  route("delete", "/api/chats/:id/grants/:grantId", "revokeGrant"),
  route("get", "/api/calendar.ics", "calendarFeed"),
  route("get", "/api/calendar/events/:id", "getEvent"),
  route("get", "/api/workspaces/:id/files/*path", "readFile"),
  route("put", "/api/workspaces/:id/files/*path", "writeFile"),
  route("get", "/api/openapi.json", "openApi", "public"),
];
const GROUPS: ApiRouteGroup[] = [{ tag: "test", description: "test routes", routes: ROUTES }];

/** What the installed routes answer, then what answers a request they pass on (or fail). */
function appAround(routes: RequestHandler): RequestListener {
  const app = express();
  app.use(routes);
  app.use((_request, response) => void response.status(404).json({ passedOn: true }));
  const failed: ErrorRequestHandler = (error, _request, response, _next) => void response.status(error.status ?? 500).json({ failed: String(error.message) });
  app.use(failed);
  return app;
}

/** The routes as installRoutes used to put them: all on one router. */
function oneRouter(access: "public" | "authenticated"): RequestHandler {
  const router = Router();
  for (const each of ROUTES) {
    if ((each.access === "public") !== (access === "public")) continue;
    router[each.method](each.path, (_request, response) => void response.json({ operation: each.operationId }));
  }
  return router;
}

const servers: Server[] = [];
const urls: Record<string, string> = {};
async function listen(name: string, listener: RequestListener): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const dependencies = {} as ApiDependencies;
  await listen("installed", appAround(installRoutes(GROUPS, dependencies, "authenticated")));
  await listen("one router", appAround(oneRouter("authenticated")));
  await listen("installed public", appAround(installRoutes(GROUPS, dependencies, "public")));
  await listen("one public router", appAround(oneRouter("public")));
});

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

/** Status, the Allow header (OPTIONS) and the body; the path is sent exactly as written. */
async function send(url: string, method: string, path: string): Promise<{ status: number; allow: string | undefined; body: string }> {
  const { status, headers, text } = await rawRequest(url, { method, path });
  return { status, allow: headers.allow, body: text };
}

const PATHS = [
  "/api/me",
  "/api/me/",
  "/api/ME",
  "/API/Me",
  "/api/me//",
  "/api//me",
  "/api/me%2F",
  "/api",
  "/api/",
  "/apix/me",
  "/api/chats",
  "/api/chats/",
  "/api/Chats/c1",
  "/api/chats/c1",
  "/api/chats/c1/",
  "/api/chats/c1/RUNS",
  "/api/chats/c%201/runs",
  "/api/chats/%E0%A4%A/runs",
  "/api/chats/c1/grants/g1",
  "/api/chats/c1/grants/",
  "/api/chatsx",
  "/api/calendar.ics",
  "/api/calendar.ICS/",
  "/api/calendarxics",
  "/api/calendar/events/e1",
  "/api/workspaces/w1/files/a/b.txt",
  "/api/workspaces/w1/files/",
  "/api/workspaces/w1/files/a%2Fb",
  "/api/openapi.json",
  "/API/OPENAPI.JSON/",
  "/",
  "*",
];

describe("installRoutes", () => {
  it("answers every path and method as one router holding all its routes did", async () => {
    let compared = 0;
    for (const [installed, reference] of [
      ["installed", "one router"],
      ["installed public", "one public router"],
    ] as const) {
      for (const path of PATHS) {
        for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]) {
          const expected = await send(urls[reference]!, method, path);
          expect({ method, path, ...(await send(urls[installed]!, method, path)) }).toEqual({ method, path, ...expected });
          compared += 1;
        }
      }
    }
    expect(compared).toBe(PATHS.length * 6 * 2);
    // Not vacuous: the routes answered, case and trailing slash as express's defaults allow.
    expect(JSON.parse((await send(urls.installed!, "POST", "/api/Chats/c1/runs/")).body)).toEqual({ operation: "startRun" });
    expect((await send(urls.installed!, "OPTIONS", "/api/chats/c1/runs")).allow).toBe("GET, HEAD, POST");
    expect(JSON.parse((await send(urls["installed public"]!, "GET", "/api/openapi.json")).body)).toEqual({ operation: "openApi" });
  });

  it("refuses a route whose first two segments are not plain text, by which routes are grouped", () => {
    const routes = [route("get", "/api/:anything", "anything")];
    expect(() => installRoutes([{ tag: "test", description: "test", routes }], {} as ApiDependencies, "authenticated")).toThrow(/first two segments/);
  });
});
