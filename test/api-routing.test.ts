import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

// createApp enters each router only for the paths under its own first segments, and the API's routes
// only by their first two (http/dispatch-by-segments.ts, installRoutes): every request below must
// still reach the router that answered it when every router saw every request, matched as that
// router matches (the console's strictly; a bare Router() ignoring case and a trailing slash).

let api: TestApi;
let consoleDirectory: string;
let chatId: string;

beforeAll(async () => {
  consoleDirectory = await mkdtemp(path.join(tmpdir(), "agentq-routing-console-"));
  await writeFile(path.join(consoleDirectory, "index.html"), "<!doctype html><title>console</title>");
  api = await startTestApi({ config: { consoleDirectory } });
  const chat = await requestJson(`${api.url}/api/chats`, { token: api.adminToken, body: { title: "routing" } });
  chatId = chat.body.id;
});

afterAll(async () => {
  await api?.close();
  await rm(consoleDirectory, { recursive: true, force: true });
});

interface Answer {
  status: number;
  /** Who answered, as the client can tell: the error code, the body's first words, or the redirect. */
  by: string;
  /** The console's security headers came with it (its router saw the request). */
  consoleHeaders: boolean;
  allow?: string;
}

async function answer(method: string, requestPath: string, options: { token?: boolean; contentType?: string; body?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${api.adminToken}`;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await rawRequest(api.url, { method, path: requestPath, headers, ...(options.body === undefined ? {} : { body: options.body }) });
  const by =
    response.headers.location !== undefined
      ? `redirect ${response.headers.location}`
      : response.json?.error?.code !== undefined
        ? response.json.error.code
        : response.text.slice(0, 24);
  return {
    status: response.status,
    by,
    consoleHeaders: response.headers["content-security-policy"] !== undefined,
    ...(response.headers.allow === undefined ? {} : { allow: response.headers.allow }),
  };
}

describe("request dispatch", () => {
  it("sends the probes' paths to the probes, matched as a bare Router() matches", async () => {
    expect(await answer("GET", "/healthz")).toEqual({ status: 200, by: '{"status":"ok"}', consoleHeaders: false });
    expect(await answer("GET", "/HEALTHZ")).toEqual({ status: 200, by: '{"status":"ok"}', consoleHeaders: false });
    expect(await answer("GET", "/healthz/")).toEqual({ status: 200, by: '{"status":"ok"}', consoleHeaders: false });
    expect(await answer("OPTIONS", "/healthz")).toEqual({ status: 200, by: "GET, HEAD", consoleHeaders: false, allow: "GET, HEAD" });
    expect(await answer("GET", "/healthzx")).toEqual({ status: 404, by: "not_found", consoleHeaders: false });
    expect((await answer("GET", "/metrics")).status).toBe(200);
  });

  it("sends / and /console paths to the console, and only with that exact case", async () => {
    expect(await answer("GET", "/")).toEqual({ status: 302, by: "redirect /console/", consoleHeaders: false });
    expect(await answer("GET", "/console")).toEqual({ status: 302, by: "redirect /console/", consoleHeaders: false });
    expect(await answer("GET", "/console/chats")).toEqual({ status: 200, by: "<!doctype html><title>co", consoleHeaders: true });
    expect(await answer("OPTIONS", "/")).toEqual({ status: 200, by: "GET, HEAD", consoleHeaders: false, allow: "GET, HEAD" });
    for (const other of ["/Console/", "/CONSOLE", "/consolex", "//"]) {
      expect({ other, ...(await answer("GET", other)) }).toEqual({ other, status: 404, by: "not_found", consoleHeaders: false });
    }
    // Through the console's router (its headers), then refused by the JSON body parser that every path passes.
    expect(await answer("POST", "/console/x", { contentType: "text/plain", body: "hello" })).toEqual({
      status: 415,
      by: "unsupported_media_type",
      consoleHeaders: true,
    });
  });

  it("authenticates /api exactly, and matches the API's routes as a bare Router() matches", async () => {
    expect(await answer("GET", "/api/openapi.json")).toMatchObject({ status: 200, by: '{"openapi":"3.1.0","info' });
    expect(await answer("GET", "/API/OPENAPI.JSON/")).toMatchObject({ status: 200, by: '{"openapi":"3.1.0","info' });
    for (const me of ["/api/me", "/api/me/", "/api/ME"]) {
      expect({ me, ...(await answer("GET", me, { token: true })) }).toEqual({
        me,
        status: 200,
        by: expect.stringMatching(/^\{"id":"usr_/),
        consoleHeaders: false,
      });
    }
    // The /api mount of authenticate is case-sensitive: /API/me is routed but never authenticated.
    expect(await answer("GET", "/API/me", { token: true })).toEqual({ status: 401, by: "unauthorized", consoleHeaders: false });
    expect(await answer("OPTIONS", "/api/me", { token: true })).toEqual({ status: 200, by: "GET, HEAD", consoleHeaders: false, allow: "GET, HEAD" });
    expect(await answer("GET", "/api/nothing", { token: true })).toEqual({ status: 404, by: "not_found", consoleHeaders: false });
    expect(await answer("GET", "/api/chatsx", { token: true })).toEqual({ status: 404, by: "not_found", consoleHeaders: false });
    expect(await answer("GET", "/api/nothing")).toEqual({ status: 401, by: "unauthorized", consoleHeaders: false });
    expect(await answer("GET", "/api")).toEqual({ status: 401, by: "unauthorized", consoleHeaders: false });
    expect(await answer("GET", "/apix")).toEqual({ status: 404, by: "not_found", consoleHeaders: false });
    expect(await answer("POST", `/api/chats/${chatId}/runs`, { token: true, contentType: "text/plain", body: "hi" })).toEqual({
      status: 415,
      by: "unsupported_media_type",
      consoleHeaders: false,
    });
    expect(await answer("POST", `/api/Chats/${chatId}/runs/`, { token: true, body: '{"input":"hi"}' })).toMatchObject({
      status: 202,
      by: expect.stringMatching(/^\{"id":"run_/),
    });
  });

  it("labels a request's duration with its route's pattern", async () => {
    const metrics = await rawRequest(api.url, { path: "/metrics" });
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/api\/chats\/:id\/runs",status_code="202"\} 1/);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/healthz",status_code="200"\} [1-9]/);
  });

  it("sends /admin/queues to the queue board, matched as a bare Router() matches", async () => {
    for (const board of ["/admin/queues", "/admin/queues/", "/ADMIN/Queues"]) {
      expect({ board, ...(await answer("GET", board)) }).toEqual({ board, status: 401, by: "Open the queue board fro", consoleHeaders: false });
    }
    for (const other of ["/admin", "/admin/queuesx", "/nothing"]) {
      expect({ other, ...(await answer("GET", other)) }).toEqual({ other, status: 404, by: "not_found", consoleHeaders: false });
    }
  });
});
