import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@agentq/core";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import { requestLogger } from "./request-logger.ts";

/** An app with the request logger, a route with a parameter, a failing one and the probe path; every line it writes is kept. */
async function startLoggedApp(level: "debug" | "info" | "warn"): Promise<{ url: string; lines: () => Record<string, any>[]; raw: string[] }> {
  const raw: string[] = [];
  const app = express();
  app.use(requestLogger(createLogger({ level, name: "api", destination: { write: (line: string) => void raw.push(line) } })));
  app.get("/runs/:id", (_request, response) => void response.status(202).json({ ok: true }));
  app.get("/boom", () => {
    throw new Error("boom");
  });
  app.get("/healthz", (_request, response) => void response.json({ status: "ok" }));
  app.use(notFoundHandler());
  app.use(errorHandler());
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines: () => raw.map((line) => JSON.parse(line)), raw };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Lines are written when the response finishes, which may be just after the client has it. */
async function linesOnceWritten(app: { lines: () => Record<string, any>[] }, count: number): Promise<Record<string, any>[]> {
  await expect.poll(() => app.lines().length).toBeGreaterThanOrEqual(count);
  // Anything more would be written in the same turn: give it one.
  await new Promise((resolve) => setImmediate(resolve));
  return app.lines();
}

describe("requestLogger", () => {
  it("writes one completion line per request: the request as it arrived, the response, the request id", async () => {
    const app = await startLoggedApp("info");
    const response = await fetch(`${app.url}/runs/run_1?after=3`, { headers: { "x-request-id": "req-1", authorization: "Bearer aq_secret", cookie: "a=b" } });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-request-id")).toBe("req-1");
    const [line, ...more] = await linesOnceWritten(app, 1);
    expect(more).toEqual([]);
    expect(Object.keys(line!)).toEqual(["level", "time", "pid", "hostname", "name", "request_id", "req", "res", "responseTime", "msg"]);
    expect(line).toMatchObject({ level: 30, request_id: "req-1", msg: "request completed", res: { statusCode: 202, headers: { "x-request-id": "req-1" } } });
    // Route params are not known when the request arrives: `params` is empty, as it always was.
    expect(line!.req).toEqual({
      id: "req-1",
      method: "GET",
      url: "/runs/run_1?after=3",
      query: { after: "3" },
      params: {},
      headers: expect.objectContaining({ authorization: "[REDACTED]", cookie: "[REDACTED]", "x-request-id": "req-1" }),
      remoteAddress: "127.0.0.1",
      remotePort: expect.any(Number),
    });
  });

  it("writes credentials of the URL and of the query as [REDACTED] on every line that carries them", async () => {
    const app = await startLoggedApp("debug");
    await fetch(`${app.url}/runs/run_1?token=aq_url_secret&tok%65n=aq_url_secret&after=1`);
    const lines = await linesOnceWritten(app, 2);
    expect(lines.map((line) => line.msg)).toEqual(["request started", "request completed"]);
    expect(lines[0]!.url).toBe("/runs/run_1?token=[REDACTED]&tok%65n=[REDACTED]&after=1");
    expect(lines[1]!.req.url).toBe("/runs/run_1?token=[REDACTED]&tok%65n=[REDACTED]&after=1");
    expect(lines[1]!.req.query).toEqual({ token: "[REDACTED]", after: "1" });
    expect(app.raw.join("")).not.toContain("aq_url_secret");
  });

  it("at warn, writes nothing for a success and the full line for a failure", async () => {
    const app = await startLoggedApp("warn");
    await fetch(`${app.url}/runs/run_1`);
    await fetch(`${app.url}/nowhere?token=aq_url_secret`);
    await fetch(`${app.url}/boom`, { headers: { "x-request-id": "req-boom" } });
    const lines = await linesOnceWritten(app, 2);
    expect(lines.map((line) => [line.level, line.msg, line.res.statusCode, line.req.url])).toEqual([
      [40, "request completed", 404, "/nowhere?token=[REDACTED]"],
      [50, "request errored", 500, "/boom"],
    ]);
    expect(lines[1]).toMatchObject({ request_id: "req-boom", err: { message: "boom" }, req: { id: "req-boom", method: "GET" } });
    expect(Object.keys(lines[1]!)).toEqual(["level", "time", "pid", "hostname", "name", "request_id", "req", "res", "err", "responseTime", "msg"]);
    expect(app.raw.join("")).not.toContain("aq_url_secret");
  });

  it("writes no line for the probe path, and gives every request an id", async () => {
    const app = await startLoggedApp("info");
    const probe = await fetch(`${app.url}/healthz`, { headers: { "x-request-id": "bad id" } });
    expect(probe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${app.url}/runs/run_2`);
    const lines = await linesOnceWritten(app, 1);
    expect(lines.map((line) => line.req.url)).toEqual(["/runs/run_2"]);
  });
});
