// Redis loses everything mid-run (docs/design.md invariant 1): queue jobs, locks, everything. Postgres
// still knows every run, and the reconciler re-enqueues the ones without a live job, so every run
// completes. Uses a private redis-server: FLUSHALL on the shared one would hit other test files.
import { spawn, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenarioInput } from "@agentq/core/testing";
import { expectContiguous, startTestStack, type TestStack } from "./support/test-stack.ts";
import { expectWellFormedTranscript, spawnReadyWorkers, startedCallIds, waitForStoredEvent, waitUntil } from "./faults-helpers.ts";
import { freePort } from "./support/free-port.ts";

async function startPrivateRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => 100 });
  probe.on("error", () => undefined);
  try {
    await waitUntil("the private redis-server answering", async () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      return (await probe.ping().catch(() => undefined)) === "PONG" ? true : undefined;
    });
  } finally {
    probe.disconnect();
  }
  return { url, process: child };
}

describe("Redis losing everything mid-run", () => {
  let stack: TestStack;
  let redis: { url: string; process: ChildProcess };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startTestStack({ workers: 0, api: { redisUrl: redis.url }, worker: { redisUrl: redis.url } });
    // One run at a time per worker: with more runs than slots, some wait in Redis when it is flushed.
    await spawnReadyWorkers(stack, 2, { WORKER_CONCURRENCY: "1" });
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    redis?.process.kill("SIGKILL");
  });

  it("every run, executing or waiting in the queue, still completes", async () => {
    const workspaceId = await stack.createWorkspace();
    const slow = { text: "Looking at the workspace.", chunkDelayMs: 60 };
    const runs: { chatId: string; runId: string }[] = [];
    for (let index = 0; index < 5; index += 1) {
      const chatId = await stack.createChat({ workspaceId });
      const runId = await stack.run(chatId, {
        // Round 2's answer is held until Redis has been flushed: a run seen between its tools is still
        // running then, and with two worker slots busy, later runs are still waiting in Redis.
        input: scenarioInput([
          { ...slow, tool: "list_files", args: {} },
          { ...slow, tool: "list_files", args: { path: "." }, holdUntil: "redis-flushed" },
          { text: `run ${index} done` },
        ]),
      });
      runs.push({ chatId, runId });
    }
    // Mid-run: a run has executed a tool and has more rounds to go.
    await waitUntil("a run between its tools", async () => {
      for (const { runId } of runs) {
        const completed = await stack.prisma.runEvent.count({ where: { runId, type: "tool.completed" } });
        if (completed === 1) return true;
      }
      return undefined;
    });
    const flusher = new Redis(redis.url, { maxRetriesPerRequest: 3 });
    try {
      await flusher.flushall();
    } finally {
      flusher.disconnect();
    }
    stack.provider.release("redis-flushed");
    const statuses = await stack.prisma.run.findMany({ where: { id: { in: runs.map((run) => run.runId) } }, select: { status: true } });
    // Both kinds were hit: runs being executed, and runs whose only trace in Redis was their job.
    expect(statuses.some((run) => run.status === "running")).toBe(true);
    expect(statuses.some((run) => run.status === "queued")).toBe(true);

    for (const { runId, chatId } of runs) {
      const index = runs.findIndex((run) => run.runId === runId);
      const run = await stack.waitForRun(runId, undefined, 120_000);
      expect(run).toMatchObject({ status: "completed", output: `run ${index} done`, tool_calls: 2, error: null });
      const events = await stack.events(runId);
      expectContiguous(events);
      const started = startedCallIds(events);
      expect(new Set(started).size).toBe(started.length);
      const { callIds } = await expectWellFormedTranscript(stack, chatId);
      expect(callIds).toHaveLength(2);
    }
    // Fresh work after the loss goes through as usual.
    const chatId = await stack.createChat();
    const runId = await stack.run(chatId, { input: scenarioInput([{ text: "after the flush" }]) });
    await waitForStoredEvent(stack, runId, "run.completed", 60_000);
  }, 240_000);
});
