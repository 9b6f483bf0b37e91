import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler } from "express";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrismaClient, UnauthorizedError } from "@agentq/core";
import { defineRoute } from "./api-route.ts";
import { tokenVerifyingRoutes } from "./api-routes.ts";
import { authenticate } from "./authenticate.ts";

const answer = { 200: { description: "ok", schema: z.object({}) } };
const GROUPS = [
  {
    tag: "test",
    description: "test routes",
    routes: [
      defineRoute({
        method: "post",
        path: "/api/approvals",
        operationId: "decide",
        summary: "decide",
        verifiesToken: true,
        responses: answer,
        handler: () => ({ status: 200, body: {} }),
      }),
      defineRoute({
        method: "get",
        path: "/api/approvals",
        operationId: "list",
        summary: "list",
        responses: answer,
        handler: () => ({ status: 200, body: {} }),
      }),
    ],
  },
];

describe("authenticate, for a route that verifies the token itself", () => {
  let server: Server;
  let url: string;
  let lookups = 0;
  beforeAll(async () => {
    // Not a Prisma client made by createPrismaClient: a lookup fails (500, counted below); no lookup is what
    // the fast path must do.
    const notADatabase = {} as PrismaClient;
    const app = express();
    app.use("/api", authenticate(notADatabase, { tokenVerifyingRoutes: tokenVerifyingRoutes(GROUPS, "/api") }));
    app.use((request, response) => {
      response.json({ user: request.user ?? null, unverified_token: request.unverifiedToken ?? null });
    });
    const onError: ErrorRequestHandler = (error, _request, response, _next) => {
      if (error instanceof UnauthorizedError) {
        response.status(401).json({ error: String(error) });
        return;
      }
      lookups += 1;
      response.status(500).json({ error: String(error) });
    };
    app.use(onError);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (method: string, path: string, authorization?: string) =>
    fetch(`${url}${path}`, { method, headers: authorization === undefined ? {} : { authorization } });

  it("passes its request on with the token unchecked, and looks nothing up", async () => {
    const before = lookups;
    const response = await send("POST", "/api/approvals", "Bearer aq_some_token");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ user: null, unverified_token: "aq_some_token" });
    expect(lookups).toBe(before);
  });

  it("refuses a request to it without a token or with a malformed header, as any route", async () => {
    expect((await send("POST", "/api/approvals")).status).toBe(401);
    expect((await send("POST", "/api/approvals", "Basic YWxhZGRpbjpvcGVu")).status).toBe(401);
  });

  it("looks the token up for every other method and path, its own path in another spelling included", async () => {
    for (const [method, path] of [
      ["GET", "/api/approvals"],
      ["POST", "/api/approvals/"],
      ["POST", "/api/Approvals"],
    ] as const) {
      const before = lookups;
      expect((await send(method, path, "Bearer aq_some_token")).status).toBe(500);
      expect(lookups).toBeGreaterThan(before);
    }
  });
});
