import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";
import { freePort } from "./support/free-port.ts";
import { waitUntil } from "./support/wait-until.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

/** A private Redis this test may stop (the shared one is never touched). */
async function startPrivateRedis(extraArguments: string[] = []): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArguments], {
    stdio: "ignore",
  });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => undefined);
  await waitUntil("the private redis to answer", async () => {
    try {
      if (probe.status !== "ready") await probe.connect();
      return (await probe.ping()) === "PONG" ? true : undefined;
    } catch {
      probe.disconnect();
      return undefined;
    }
  });
  probe.disconnect();
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

describe("operations endpoints", () => {
  it("GET /healthz answers 200 without a token", async () => {
    const response = await requestJson(`${api.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("ok");
  });

  it("GET /readyz answers 200 with both checks ok", async () => {
    const response = await requestJson(`${api.url}/readyz`);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("ready");
    expect(response.body.checks.postgres.status).toBe("ok");
    expect(response.body.checks.redis.status).toBe("ok");
    expect(response.body.checks.redis_eviction_policy).toEqual({ status: "ok", policy: "noeviction" });
  });

  it("GET /readyz answers 503 naming the policy and the fix when Redis may evict keys, and the API logs it as an error at start", async () => {
    const redis = await startPrivateRedis(["--maxmemory-policy", "allkeys-lru"]);
    const isolated = await startTestApi({ config: { redisUrl: redis.url, readinessTimeoutMs: 1000 } });
    try {
      const response = await requestJson(`${isolated.url}/readyz`);
      expect(response.status).toBe(503);
      expect(response.body.error.message).toMatch(/allkeys-lru/);
      expect(response.body.error.message).toMatch(/noeviction/);
      expect(response.body.error.details.failed).toEqual(["redis_eviction_policy"]);
      expect(response.body.checks.redis.status).toBe("ok");
      expect(response.body.checks.redis_eviction_policy).toMatchObject({ status: "failed", policy: "allkeys-lru" });
      const logged = await waitUntil("the start-up error", async () =>
        isolated.logs.find((line) => line.includes('"level":50') && line.includes("allkeys-lru")),
      );
      expect(logged).toMatch(/noeviction/);
    } finally {
      await isolated.close();
      await redis.stop();
    }
  });

  it("GET /readyz stays ready but says it could not check when Redis refuses CONFIG", async () => {
    const redis = await startPrivateRedis(["--rename-command", "CONFIG", ""]);
    const isolated = await startTestApi({ config: { redisUrl: redis.url, readinessTimeoutMs: 1000 } });
    try {
      const response = await requestJson(`${isolated.url}/readyz`);
      expect(response.status).toBe(200);
      expect(response.body.checks.redis_eviction_policy.status).toBe("unknown");
      expect(response.body.checks.redis_eviction_policy.error).toMatch(/could not check/);
      await waitUntil("the start-up warning", async () => isolated.logs.find((line) => line.includes('"level":40') && line.includes("could not check")));
    } finally {
      await isolated.close();
      await redis.stop();
    }
  });

  it("GET /readyz answers 503 naming redis when Redis stops", async () => {
    const redis = await startPrivateRedis();
    const isolated = await startTestApi({ config: { redisUrl: redis.url, readinessTimeoutMs: 500 } });
    try {
      expect((await requestJson(`${isolated.url}/readyz`)).status).toBe(200);
      await redis.stop();
      const notReady = await waitUntil("readyz to fail", async () => {
        const response = await requestJson(`${isolated.url}/readyz`);
        return response.status === 503 ? response : undefined;
      });
      expect(notReady.body.error.code).toBe("service_unavailable");
      expect(notReady.body.error.message).toContain("redis");
      expect(notReady.body.error.details.failed).toEqual(["redis"]);
      expect(notReady.body.error.details.checks.postgres.status).toBe("ok");
      expect(notReady.body.error.details.checks.redis.status).toBe("failed");
      // The process itself is fine: liveness stays up.
      expect((await requestJson(`${isolated.url}/healthz`)).status).toBe(200);
    } finally {
      await isolated.close();
      await redis.stop();
    }
  });

  it("GET /metrics exposes default metrics and the request histogram labelled by route pattern", async () => {
    const workspace = await requestJson(`${api.url}/api/workspaces`, { token: api.adminToken, body: { name: "metrics" } });
    await requestJson(`${api.url}/api/workspaces/${workspace.body.id}/files/m.txt`, {
      method: "PUT",
      token: api.adminToken,
      body: { content: "x" },
    });
    await requestJson(`${api.url}/api/not-a-route`, { token: api.adminToken });

    const response = await fetch(`${api.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
    expect(text).toContain('http_request_duration_seconds_count{method="PUT",route="/api/workspaces/:id/files/*path",status_code="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/api/workspaces",status_code="201"} 1');
    expect(text).toContain('route="unmatched",status_code="404"');
    expect(text).not.toContain(workspace.body.id);
    expect(text).toContain("process_cpu_user_seconds_total");
    // The queue depth an autoscaler of the workers reads (docs/operations.md).
    expect(text).toContain("# TYPE agentq_queue_jobs gauge");
    expect(text).toContain('agentq_queue_jobs{state="waiting"} 0');
  });
});

describe("request logs", () => {
  it("carry the request id on every line and never a bearer token", async () => {
    const user = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name: "logged-user" } });
    const token: string = user.body.token;
    const requestId = "log-test-request-1";
    const response = await requestJson(`${api.url}/api/me`, { token, headers: { "x-request-id": requestId } });
    expect(response.status).toBe(200);
    await requestJson(`${api.url}/api/ws?token=${token}`, { headers: { "x-request-id": "log-test-request-2" } });

    const lines = await waitUntil("the request's completion line", async () => {
      const found = api.logs.filter((line) => line.includes(requestId));
      return found.some((line) => line.includes("request completed")) ? found : undefined;
    });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line).request_id).toBe(requestId);
    const everything = api.logs.join("\n");
    expect(everything).toContain("log-test-request-2");
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(3));
    expect(everything).not.toContain(api.adminToken);
    expect(everything).toContain("[REDACTED]");
  });
});
