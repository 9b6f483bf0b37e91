// `npm start` stops everything on SIGTERM or SIGINT sent to the npm process itself, as a process
// manager does (issue 16 item 1): no API or worker is left behind holding the port.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "./support/database.ts";
import { freePort } from "./support/free-port.ts";
import { deleteTestKeys, TEST_REDIS_URL, uniqueQueuePrefix } from "./support/redis.ts";
import { waitUntil } from "./support/wait-until.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Every process below `pid` (children, grandchildren...), from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie has exited; its parent has not collected it yet.
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

async function startAgentq(): Promise<{ npm: ChildProcess; url: string; output: () => string; drop: () => Promise<void> }> {
  const database = await createTestDatabase();
  const port = await freePort();
  const queuePrefix = uniqueQueuePrefix();
  const workspacesRoot = await mkdtemp(path.join(tmpdir(), "agentq-signals-"));
  // What the run left behind: its database, its Redis keys, its workspaces.
  const drop = async () => {
    await database.drop();
    await deleteTestKeys(queuePrefix);
    await rm(workspacesRoot, { recursive: true, force: true });
  };
  const npm = spawn("npm", ["start"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/root",
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      WORKSPACES_ROOT: workspacesRoot,
      ADMIN_TOKEN: "aq_signals_test_token_0123456789abcdef",
      PROCESS_SANDBOX: "off",
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  npm.stdout!.on("data", (chunk) => (output += chunk));
  npm.stderr!.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitUntil("agentq ready", async () => ((await fetch(`${url}/readyz`).catch(() => null))?.ok ? true : undefined), 60_000).catch((error: Error) => {
    npm.kill("SIGKILL");
    throw new Error(`${error.message}\n${output}`);
  });
  return { npm, url, output: () => output, drop };
}

describe("signals to the npm start process", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to npm's own pid stops the API and the worker and frees the port`, async () => {
      const agentq = await startAgentq();
      // Collected before the signal: once npm exits, what it leaves behind is no longer below it.
      const tree = descendants(agentq.npm.pid!);
      try {
        expect(tree.length).toBeGreaterThanOrEqual(2);
        agentq.npm.kill(signal);
        await waitUntil(`every process gone after ${signal}`, () => (tree.every((pid) => !alive(pid)) ? true : undefined), 40_000).catch((error: Error) => {
          throw new Error(`${error.message}; still running: ${tree.filter(alive).join(", ")}\n${agentq.output()}`);
        });
        expect(await fetch(`${agentq.url}/readyz`).catch(() => "refused")).toBe("refused");
        expect(agentq.output()).toContain("api stopped");
      } finally {
        for (const pid of tree.filter(alive)) process.kill(pid, "SIGKILL");
        await agentq.drop();
      }
    }, 90_000);
  }
});
