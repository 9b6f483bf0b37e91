import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import express, { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiDependencies } from "../api-dependencies.ts";
import { CONSOLE_PATH, serveConsole } from "../console/serve-console.ts";
import { operationsRouter } from "../routes/operations.ts";
import { leadingSegments } from "./leading-segments.ts";
import { firstSegmentsOfRoutes, whenFirstSegmentIs } from "./dispatch-by-segments.ts";
import { rawRequest } from "../../../../test/support/raw-request.ts";

/** A stand-in for the queue board: a bare Router() with a mount, as mount-queue-board.ts has. */
function boardLike(): Router {
  const router = Router();
  router.use("/admin/queues", (request, response) => void response.type("text/plain").send(`board ${request.baseUrl} ${request.url}`));
  return router;
}

/** The app as createApp mounts these routers (same settings), each behind `guard`, then a 404 saying it was passed on. */
function appOf(guard: (segments: string[], router: Router, caseSensitive: boolean) => RequestHandler, consoleDirectory: string): RequestListener {
  const app = express();
  app.set("strict routing", true);
  app.set("case sensitive routing", true);
  const operations = operationsRouter({} as ApiDependencies);
  app.use(guard(firstSegmentsOfRoutes(operations), operations, false));
  app.use(guard(["", leadingSegments(CONSOLE_PATH, 1)], serveConsole(consoleDirectory), true));
  app.use(guard(["admin"], boardLike(), false));
  app.use((request, response) => void response.status(404).json({ passedOn: request.path }));
  const failed: ErrorRequestHandler = (error, _request, response, _next) => void response.status(error.status ?? 500).json({ failed: String(error.message) });
  app.use(failed);
  return app;
}

const servers: Server[] = [];
let guardedUrl = "";
let unguardedUrl = "";
let consoleDirectory = "";

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  consoleDirectory = await mkdtemp(path.join(tmpdir(), "agentq-dispatch-"));
  await mkdir(path.join(consoleDirectory, "assets"));
  await writeFile(path.join(consoleDirectory, "index.html"), "<!doctype html><title>console</title>");
  await writeFile(path.join(consoleDirectory, "assets", "app-1.js"), "export {};");
  guardedUrl = await listen(appOf((segments, router, caseSensitive) => whenFirstSegmentIs(segments, router, { caseSensitive }), consoleDirectory));
  unguardedUrl = await listen(appOf((_segments, router) => router, consoleDirectory));
});

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await rm(consoleDirectory, { recursive: true, force: true });
});

/** What a client sees of an answer, minus the Date; the path is sent exactly as written. */
async function send(url: string, method: string, requestPath: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const answer = await rawRequest(url, { method, path: requestPath, headers: { connection: "close" } });
  const { date: _date, "last-modified": _modified, ...headers } = answer.headers;
  return { status: answer.status, headers, body: answer.text };
}

const PATHS = [
  "/",
  "//",
  "/?x=1",
  "/healthz",
  "/healthz/",
  "/HEALTHZ",
  "/healthz/x",
  "/healthzx",
  "/metricsx",
  "/console",
  "/console/",
  "/Console/",
  "/CONSOLE",
  "/console/chats",
  "/console/chats/",
  "/console/assets/app-1.js",
  "/console/assets/missing.js",
  "/consolex",
  "/console%2F",
  "/admin",
  "/admin/queues",
  "/admin/queues/",
  "/ADMIN/Queues/x",
  "/admin/queuesx",
  "/admin//queues",
  "/api/me",
  "/nothing",
  "*",
];

describe("whenFirstSegmentIs", () => {
  it("leaves every answer of the routers it guards as it was without it", async () => {
    for (const requestPath of PATHS) {
      for (const method of ["GET", "HEAD", "POST", "OPTIONS"]) {
        const expected = await send(unguardedUrl, method, requestPath);
        expect({ method, requestPath, ...(await send(guardedUrl, method, requestPath)) }).toEqual({ method, requestPath, ...expected });
      }
    }
    // Not vacuous: each router answered its own paths, matched as it matches them.
    expect((await send(guardedUrl, "GET", "/HEALTHZ")).body).toBe('{"status":"ok"}');
    expect((await send(guardedUrl, "GET", "/console/chats")).headers["content-security-policy"]).toBeDefined();
    expect((await send(guardedUrl, "GET", "/Console/chats")).body).toBe('{"passedOn":"/Console/chats"}');
    expect((await send(guardedUrl, "GET", "/ADMIN/Queues/x")).body).toBe("board /ADMIN/Queues /x");
  });
});

describe("firstSegmentsOfRoutes", () => {
  it("names the first segment of each route, once, and refuses a router it could not describe", () => {
    expect(firstSegmentsOfRoutes(operationsRouter({} as ApiDependencies))).toEqual(["healthz", "readyz", "metrics"]);
    const twoUnderOne = Router();
    twoUnderOne.get("/status/live", (_request, response) => void response.end());
    twoUnderOne.get("/status/ready", (_request, response) => void response.end());
    expect(firstSegmentsOfRoutes(twoUnderOne)).toEqual(["status"]);
    const withMiddleware = Router();
    withMiddleware.use((_request, _response, next) => next());
    expect(() => firstSegmentsOfRoutes(withMiddleware)).toThrow(/not a route/);
    const withParameter = Router();
    withParameter.get("/:anything", (_request, response) => void response.end());
    expect(() => firstSegmentsOfRoutes(withParameter)).toThrow(/not a route/);
  });
});
