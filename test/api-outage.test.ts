// A dependency outage is `503 unavailable` naming the dependency, on every route, never a 500
// (issue 8): Postgres crashed (`pg_ctl stop -m immediate`, on a private server the test owns) and
// Redis stopped (a private redis-server). Once the dependency is back, the same requests succeed.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { applyMigrations } from "@agentq/core/migrations";
import { MIGRATIONS_DIRECTORY } from "./support/global-setup.ts";
import { startPrivatePostgres, type PrivatePostgres } from "./support/private-postgres.ts";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";
import { waitUntil } from "./faults-helpers.ts";
import { freePort } from "./support/free-port.ts";

function upgradeStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => {
      socket.close();
      resolve({ status: 101, body: "" });
    });
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once("error", reject);
  });
}

/** Every route of API.md, with a body where it takes one. */
function routes(ids: { chatId: string; runId: string; workspaceId: string }): [string, string, unknown?][] {
  return [
    ["GET", "/api/me"],
    ["POST", "/api/users", { name: "outage-user" }],
    ["GET", "/api/workspaces"],
    ["POST", "/api/workspaces", { name: "outage" }],
    ["PUT", `/api/workspaces/${ids.workspaceId}/files/a.txt`, { content: "x" }],
    ["GET", `/api/workspaces/${ids.workspaceId}/files/a.txt`],
    ["POST", "/api/chats", { title: "during the outage" }],
    ["GET", `/api/chats/${ids.chatId}`],
    ["POST", `/api/chats/${ids.chatId}/runs`, { input: "hello" }],
    ["GET", `/api/runs/${ids.runId}`],
    ["GET", `/api/runs/${ids.runId}/events?after=0`],
    ["POST", `/api/runs/${ids.runId}/cancel`],
    ["POST", "/api/approvals", { tool_approval_id: "apr_x", tool_approval_decision: "deny" }],
    ["GET", "/api/tools"],
    ["GET", "/api/settings"],
    ["PATCH", "/api/settings", { agent_max_rounds: 5 }],
  ];
}

describe("Postgres crashed under a running API", () => {
  let postgres: PrivatePostgres;
  let api: TestApi;
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const url = postgres.url("agentq");
    await applyMigrations({ databaseUrl: url, migrationsDirectory: MIGRATIONS_DIRECTORY });
    api = await startTestApi({ database: { url, name: "agentq", drop: async () => undefined }, config: { readinessTimeoutMs: 1000 } });
  }, 120_000);
  afterAll(async () => {
    await api?.close().catch(() => undefined);
    await postgres?.destroy();
  });

  it("every route answers 503 unavailable naming Postgres, the WebSocket upgrade too, and all work again once it is back", async () => {
    const token = api.adminToken;
    const workspaceId = (await requestJson(`${api.url}/api/workspaces`, { token, body: { name: "w" } })).body.id;
    const chatId = (await requestJson(`${api.url}/api/chats`, { token, body: { title: "c", workspace_id: workspaceId } })).body.id;
    const run = await requestJson(`${api.url}/api/chats/${chatId}/runs`, { token, body: { input: "before" } });
    expect(run.status).toBe(202);
    const ids = { chatId, runId: run.body.id, workspaceId };

    await postgres.crash();
    for (const [method, path, body] of routes(ids)) {
      const response = await requestJson(`${api.url}${path}`, { method, token, ...(body === undefined ? {} : { body }) });
      expect({ method, path, status: response.status, code: response.body?.error?.code }).toEqual({ method, path, status: 503, code: "unavailable" });
      expect(response.body.error.message).toMatch(/Postgres/);
      expect(response.body.error.details.dependencies).toEqual(["postgres"]);
    }
    const upgrade = await upgradeStatus(`${api.url.replace("http", "ws")}/api/ws?token=${encodeURIComponent(token)}`);
    expect(upgrade.status).toBe(503);
    expect(JSON.parse(upgrade.body).error).toMatchObject({ code: "unavailable", message: expect.stringMatching(/Postgres/) });
    expect((await requestJson(`${api.url}/readyz`)).status).toBe(503);

    await postgres.start();
    await waitUntil("the API to serve again", async () => ((await requestJson(`${api.url}/api/me`, { token })).status === 200 ? true : undefined));
    // What was committed before the crash is there; new work is accepted.
    expect((await requestJson(`${api.url}/api/runs/${ids.runId}`, { token })).body.status).toBe("queued");
    const newChat = await requestJson(`${api.url}/api/chats`, { token, body: { title: "after" } });
    expect(newChat.status).toBe(201);
    const after = await requestJson(`${api.url}/api/chats/${newChat.body.id}/runs`, { token, body: { input: "after" } });
    expect(after.status).toBe(202);
    expect((await upgradeStatus(`${api.url.replace("http", "ws")}/api/ws?token=${encodeURIComponent(token)}`)).status).toBe(101);
  }, 120_000);
});

describe("Redis stopped under a running API", () => {
  it("routes that need Redis answer 503 unavailable naming Redis, the others keep working, none answers 500", async () => {
    const port = await freePort();
    const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    const api = await startTestApi({ config: { redisUrl: `redis://127.0.0.1:${port}`, readinessTimeoutMs: 1000 } });
    try {
      const token = api.adminToken;
      const workspaceId = (await requestJson(`${api.url}/api/workspaces`, { token, body: { name: "w" } })).body.id;
      const chatId = (await requestJson(`${api.url}/api/chats`, { token, body: { title: "c" } })).body.id;
      const run = await requestJson(`${api.url}/api/chats/${chatId}/runs`, { token, body: { input: "before" } });
      expect(run.status).toBe(202);
      const exited = once(redis, "exit");
      redis.kill("SIGKILL");
      await exited;
      for (const [method, path, body] of routes({ chatId, runId: run.body.id, workspaceId })) {
        const response = await requestJson(`${api.url}${path}`, { method, token, ...(body === undefined ? {} : { body }) });
        expect({ method, path, status: response.status }).not.toMatchObject({ status: 500 });
        if (response.status === 503) {
          expect(response.body.error.code).toBe("unavailable");
          expect(response.body.error.message).toMatch(/Redis/);
        }
      }
      // Creating a run needs the queue: 503 naming Redis, and the run is kept for the reconciler.
      const queued = await requestJson(`${api.url}/api/chats/${chatId}/runs`, { token, body: { input: "while redis is down" } });
      expect(queued.status).toBe(503);
      expect(queued.body.error).toMatchObject({ code: "unavailable", message: expect.stringMatching(/Redis/) });
    } finally {
      if (redis.exitCode === null && redis.signalCode === null) redis.kill("SIGKILL");
      await api.close();
    }
  }, 120_000);
});
