import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { dropTestDatabase, newTestDatabaseName, testDatabaseUrl } from "./support/database.ts";
import { TEST_REDIS_URL, createTestRedis, deleteTestKeys, uniqueQueuePrefix } from "./support/redis.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
async function deadPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });
}

describe("npm start (the README's command)", () => {
  const databaseName = newTestDatabaseName();
  const prefix = uniqueQueuePrefix();
  afterAll(async () => {
    await dropTestDatabase(databaseName);
    await deleteTestKeys(prefix);
  });

  it("creates and migrates the database, serves /readyz, /api/me and the console, and stops cleanly on SIGTERM", async () => {
    const token = "aq_start-test-token-0123456789abcdef";
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/root",
        DATABASE_URL: testDatabaseUrl(databaseName),
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        PORT: "0",
        ADMIN_TOKEN: token,
        WORKSPACES_ROOT: `/tmp/agentq-start-test-${prefix}`,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      let port: number | undefined;
      while (port === undefined) {
        const match = /api listening on [^:]+:(\d+)/.exec(output);
        if (match) port = Number(match[1]);
        else if (Date.now() > deadline) throw new Error(`npm start did not listen in time:\n${output}`);
        else await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const base = `http://127.0.0.1:${port}`;
      let ready = await fetch(`${base}/readyz`);
      while (ready.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        ready = await fetch(`${base}/readyz`);
      }
      expect(ready.status).toBe(200);
      const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ name: "admin", role: "admin" });
      // The API runs from its bundle (dist/server), and still finds the console's files beside its sources.
      const page = await fetch(`${base}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<title>agentq console</title>");
      // The worker started too: it subscribes to the control channel when it is up.
      const redis = createTestRedis();
      try {
        while (Date.now() < deadline) {
          const [, subscribers] = (await redis.pubsub("NUMSUB", `${prefix}:control`)) as [string, number];
          if (Number(subscribers) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const [, subscribers] = (await redis.pubsub("NUMSUB", `${prefix}:control`)) as [string, number];
        expect(Number(subscribers)).toBeGreaterThan(0);
      } finally {
        await redis.quit();
      }
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 150_000);
});

describe("when a dependency is unreachable", () => {
  let stack: TestStack | undefined;
  afterAll(async () => {
    await stack?.close();
  });

  it("a run whose model endpoint cannot be reached fails with the URL tried and the variable that sets it", async () => {
    const port = await deadPort();
    stack = await startTestStack({ worker: { openaiBaseUrl: `http://127.0.0.1:${port}/v1` } });
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: "hello" });
    const run = await stack.waitForRun(runId, undefined, 60_000);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("model_provider_unreachable");
    expect(run.error.message).toContain(`127.0.0.1:${port}`);
    expect(run.error.message).toContain("OPENAI_BASE_URL");
  }, 90_000);
});

describe("when Redis is unreachable for the API", () => {
  let stack: TestStack | undefined;
  afterAll(async () => {
    await stack?.close();
  });

  it("POST runs answers 503 quickly and the run stays queued in Postgres for the reconciler", async () => {
    const port = await deadPort();
    stack = await startTestStack({ workers: 0, api: { redisUrl: `redis://127.0.0.1:${port}` } });
    const chatId = await stack.createChat();
    const started = Date.now();
    const result = await stack.startRun(chatId, { input: scenarioInput([{ text: "later" }]) });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.status).toBe(503);
    expect(result.body.error.code).toBe("unavailable");
    const runs = await stack.prisma.run.findMany({ where: { chatId } });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("queued");
    expect(result.body.error.details.run_id).toBe(runs[0]!.id);
    // A worker on a healthy Redis finds it through the reconciler and runs it.
    await stack.startWorker({ reconcileIntervalMs: 500, redisUrl: TEST_REDIS_URL });
    const run = await stack.waitForRun(runs[0]!.id, undefined, 60_000);
    expect(run).toMatchObject({ status: "completed", output: "later" });
  }, 120_000);
});
