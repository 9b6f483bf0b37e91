import { afterAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import { setWorkerConcurrency } from "@agentq/queue";
import { createTestRedis, deleteKeysWithPrefix, uniqueQueuePrefix } from "./support/redis.ts";
import { waitUntil } from "./support/wait-until.ts";

/** Resolves once `job` has started (waitUntil fails the test after `timeoutMs`). */
function startOf(started: readonly string[], job: string, timeoutMs: number): Promise<true> {
  return waitUntil(`job ${job} started`, () => started.includes(job) || undefined, timeoutMs);
}

describe("setWorkerConcurrency (a slot an offered run gives back)", () => {
  const redis = createTestRedis();
  const prefix = uniqueQueuePrefix();
  const queue = new Queue("concurrency", { connection: redis, prefix });
  afterAll(async () => {
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });

  it("starts a waiting job in a raised slot while the job already running still holds its own", async () => {
    const started: string[] = [];
    const connection = redis.duplicate();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker(
      "concurrency",
      async (job) => {
        started.push(job.name);
        if (job.name === "long") await held;
      },
      { connection, prefix, concurrency: 1 },
    );
    try {
      await queue.add("long", {});
      expect(await startOf(started, "long", 5000)).toBe(true);
      await queue.add("next", {});
      // One slot, held: the next job waits (BullMQ's loop now waits for the long job's end).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(started.includes("next")).toBe(false);

      setWorkerConcurrency(worker, 2);
      expect(worker.concurrency).toBe(2);
      // Taken in the new slot at once, not when the long job ends.
      expect(await startOf(started, "next", 3000)).toBe(true);
      expect(started).toEqual(["long", "next"]);
    } finally {
      release();
      await worker.close();
      await connection.quit();
    }
  });
});
