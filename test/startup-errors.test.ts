// A process that cannot start says, on one JSON log line, which setting to check (issue 16 item 3):
// the API's port already taken, the worker's Postgres not answering.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "./support/database.ts";
import { freePort } from "./support/free-port.ts";
import { deleteTestKeys, TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { serviceArguments } from "./support/service-process.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Starts the API or a worker process and collects its output until it exits. */
function runMain(service: "api" | "worker", environment: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, serviceArguments(service), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", LOG_LEVEL: "info", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, lines: output.split("\n").filter(Boolean) })));
}

function fatalLine(lines: string[]): { msg: string; variables: string[] } {
  const line = lines.find((candidate) => candidate.includes('"level":60'));
  if (!line) throw new Error(`no fatal JSON line in:\n${lines.join("\n")}`);
  return JSON.parse(line);
}

describe("start-up failures name what to set", () => {
  it("the API on a port that is already in use exits with a JSON line naming PORT and HOST", async () => {
    const database = await createTestDatabase();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    // The API sets up its queue (BullMQ writes the queue's meta key) before it finds the port taken.
    const queuePrefix = uniqueQueuePrefix();
    try {
      const { code, lines } = await runMain("api", {
        DATABASE_URL: database.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: queuePrefix,
        WORKSPACES_ROOT: path.join(ROOT, "data", "startup-test"),
        ADMIN_TOKEN: "aq_startup_test_token_0123456789abcdef",
        HOST: "127.0.0.1",
        PORT: String(port),
      });
      expect(code).toBe(1);
      const fatal = fatalLine(lines);
      expect(fatal.variables).toEqual(["PORT", "HOST"]);
      expect(fatal.msg).toContain(`127.0.0.1:${port} is already in use`);
    } finally {
      taken.close();
      await database.drop();
      await deleteTestKeys(queuePrefix);
    }
  });

  it("a worker whose Postgres does not answer exits with a JSON line naming DATABASE_URL, without the password", async () => {
    const closedPort = await freePort();
    const { code, lines } = await runMain("worker", {
      DATABASE_URL: `postgresql://agentq:hunter2secret@127.0.0.1:${closedPort}/agentq`,
      REDIS_URL: TEST_REDIS_URL,
      // The worker stops at Postgres, before it writes anything to Redis.
      QUEUE_PREFIX: uniqueQueuePrefix(),
      WORKSPACES_ROOT: path.join(ROOT, "data", "startup-test"),
      PROCESS_SANDBOX: "off",
    });
    expect(code).toBe(1);
    const fatal = fatalLine(lines);
    expect(fatal.variables).toEqual(["DATABASE_URL"]);
    expect(fatal.msg).toContain(`Postgres at 127.0.0.1:${closedPort} does not answer`);
    expect(lines.join("\n")).not.toContain("hunter2secret");
  });
});
