// A real API server for integration tests: its own database (cloned from the migrated template), a
// temporary WORKSPACES_ROOT, a fixed admin token, a random queue prefix, port 0 on 127.0.0.1.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseApiConfig, type ApiConfig } from "../../apps/api/src/config.ts";
import { startApiServer, type ApiServer, type StartApiServerOverrides } from "../../apps/api/src/server.ts";
import { createPrismaClient, isClusterRedisUrl, type PrismaClient } from "@agentq/core";
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniqueQueuePrefix } from "./redis.ts";

export { rawRequest } from "./raw-request.ts";

export const TEST_ADMIN_TOKEN = "aq_test-admin-token-0123456789abcdefghijklmnop";

/** Sets api_rate_limit_per_minute in the test's database. */
async function setRateLimit(databaseUrl: string, perMinute: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO settings (key, value, updated_at) VALUES ('api_rate_limit_per_minute', $1::jsonb, now()) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [JSON.stringify(perMinute)],
    );
  } finally {
    await client.end();
  }
}

export interface StartTestApiOptions {
  /** api_rate_limit_per_minute set in the database before the API starts. Default 0: tests run without a rate limit. */
  rateLimitPerMinute?: number;
  /** Replaces fields of the test configuration (which starts from the API's defaults). */
  config?: Partial<ApiConfig>;
  /** Passed to startApiServer (a logger, a Redis connection...). */
  dependencies?: StartApiServerOverrides;
  /** Use this database instead of creating one; the caller drops it. */
  database?: TestDatabase;
}

export interface TestApi {
  url: string;
  adminToken: string;
  /** A client of the test database for assertions (separate from the server's own). */
  prisma: PrismaClient;
  config: ApiConfig;
  server: ApiServer;
  database: TestDatabase;
  /** Every log line the server wrote, as JSON text (set AGENTQ_TEST_LOGS=1 to also see them on stderr). */
  logs: string[];
  /** Deletes the queue prefix's Redis keys, stops the server, drops the database (unless given), removes the workspaces directory. */
  close(): Promise<void>;
}

export async function startTestApi(options: StartTestApiOptions = {}): Promise<TestApi> {
  const database = options.database ?? (await createTestDatabase());
  const workspacesRoot = await mkdtemp(join(tmpdir(), "agentq-workspaces-"));
  const config: ApiConfig = {
    ...parseApiConfig({}),
    databaseUrl: database.url,
    redisUrl: TEST_REDIS_URL,
    port: 0,
    host: "127.0.0.1",
    adminToken: TEST_ADMIN_TOKEN,
    workspacesRoot,
    queuePrefix: uniqueQueuePrefix(),
    logLevel: "debug",
    shutdownTimeoutMs: 2000,
    // A worker a test starts is offered new runs within 100 ms of its first beat.
    liveWorkersRefreshMs: 100,
    ...options.config,
  };
  // Tests fire requests far faster than people do: no rate limit unless a test sets one.
  await setRateLimit(database.url, options.rateLimitPerMinute ?? 0);
  const logs: string[] = [];
  const echo = process.env.AGENTQ_TEST_LOGS === "1";
  const server = await startApiServer(config, {
    logDestination: {
      write(line: string) {
        logs.push(line);
        if (echo) process.stderr.write(line);
      },
    },
    ...options.dependencies,
  });
  const prisma = createPrismaClient({ databaseUrl: database.url, poolSize: 2 });
  return {
    url: server.url,
    adminToken: config.adminToken ?? TEST_ADMIN_TOKEN,
    prisma,
    config,
    server,
    database,
    logs,
    async close() {
      const redis = server.dependencies.redis;
      // Keys this API created under its random prefix (none when that Redis is down: nothing to do;
      // a test's own cluster, redis-cluster.ts, is torn down by its owner).
      if (redis.status === "ready" && !isClusterRedisUrl(config.redisUrl)) await deleteKeysWithPrefix(redis, config.queuePrefix).catch(() => undefined);
      await server.close();
      await prisma.$disconnect();
      if (options.database === undefined) await database.drop();
      await rm(workspacesRoot, { recursive: true, force: true });
    },
  };
}

export interface JsonResponse<Body = any> {
  status: number;
  headers: Headers;
  body: Body;
}

/**
 * fetch + JSON: `body` is sent as JSON, `token` as a bearer token. The response body is parsed
 * when it is JSON, else returned as text.
 */
export async function requestJson<Body = any>(
  url: string,
  options: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse<Body>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(url, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: body as Body };
}
