import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { deleteTestKeys, TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { serviceArguments } from "./support/service-process.ts";
import { TEST_ADMIN_TOKEN } from "./support/test-api.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

let database: TestDatabase;
let workspacesRoot: string;
/** The API's queue keys (BullMQ writes the queue's meta key at start): this file's own, deleted at the end. */
const queuePrefix = uniqueQueuePrefix();

beforeAll(async () => {
  database = await createTestDatabase();
  workspacesRoot = await mkdtemp(join(tmpdir(), "agentq-process-"));
});

afterAll(async () => {
  await database?.drop();
  await rm(workspacesRoot, { recursive: true, force: true });
  await deleteTestKeys(queuePrefix);
});

type ApiProcess = ChildProcessByStdio<null, Readable, Readable>;

function startApiProcess(environment: Record<string, string>): { child: ApiProcess; lines: string[]; stderr: () => string } {
  const child = spawn(process.execPath, serviceArguments("api"), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", QUEUE_PREFIX: queuePrefix, ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts.filter((line) => line !== ""));
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return { child, lines, stderr: () => stderr };
}

/** Generous: the API loads its modules and connects on start, which takes seconds on a loaded machine. */
async function waitForLine(lines: string[], matches: (entry: any) => boolean, what: string, timeoutMs = 45_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of lines) {
      try {
        const entry = JSON.parse(line);
        if (matches(entry)) return entry;
      } catch {
        // not a JSON line
      }
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stdout so far:\n${lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function exitCode(child: ApiProcess, timeoutMs = 45_000): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return code;
}

describe("the API process (npm run start:api)", () => {
  it("exits 1 naming the variable when the environment has a bad value", { timeout: 60_000 }, async () => {
    const { child, stderr } = startApiProcess({ PORT: "not-a-port", DATABASE_URL: database.url });
    expect(await exitCode(child)).toBe(1);
    expect(stderr()).toContain("PORT");
  });

  it("on SIGTERM stops accepting, finishes the in-flight request, and exits 0", { timeout: 120_000 }, async () => {
    const { child, lines, stderr } = startApiProcess({
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      WORKSPACES_ROOT: workspacesRoot,
      LOG_LEVEL: "debug",
    });
    try {
      const listening = await Promise.race([
        waitForLine(lines, (entry) => typeof entry.port === "number" && /listening/.test(entry.msg), "the listening line"),
        once(child, "exit").then(([code]) => {
          throw new Error(`the API exited with ${String(code)} before listening: ${stderr()}`);
        }),
      ]);
      const port: number = listening.port;
      const created = await fetch(`http://127.0.0.1:${port}/api/workspaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "shutdown" }),
      });
      expect(created.status).toBe(201);
      const workspace = (await created.json()) as { id: string };

      // Start a request and send only half of its body: it is in flight until we finish it.
      const body = JSON.stringify({ content: "finished after SIGTERM" });
      const inFlight = httpRequest({
        host: "127.0.0.1",
        port,
        method: "PUT",
        path: `/api/workspaces/${workspace.id}/files/late.txt`,
        headers: {
          authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-request-id": "in-flight-1",
        },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        inFlight.on("response", (incoming) => {
          let text = "";
          incoming.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, text }));
        });
        inFlight.on("error", reject);
      });
      inFlight.write(body.slice(0, 10));
      await waitForLine(lines, (entry) => entry.request_id === "in-flight-1" && entry.msg === "request started", "the request to start");

      child.kill("SIGTERM");
      await waitForLine(lines, (entry) => /shutting down/.test(entry.msg), "the shutdown line");
      // No new connections once shutdown began.
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

      inFlight.end(body.slice(10));
      const finished = await response;
      expect(finished.status).toBe(200);
      expect(JSON.parse(finished.text)).toEqual({ path: "late.txt", revision: expect.any(String) });
      expect(await exitCode(child)).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
