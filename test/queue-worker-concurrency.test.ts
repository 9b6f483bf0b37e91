import { afterAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import { setWorkerConcurrency } from "@agentq/queue";
import { createTestRedis, deleteKeysWithPrefix, uniqueQueuePrefix } from "./support/redis.ts";

/** Polls `condition` every 20 ms for up to `ms`; its last answer. */
async function within(ms: number, condition: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
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
      expect(await within(5000, () => started.includes("long"))).toBe(true);
      await queue.add("next", {});
      // One slot, held: the next job waits (BullMQ's loop now waits for the long job's end).
      expect(await within(300, () => started.includes("next"))).toBe(false);

      setWorkerConcurrency(worker, 2);
      expect(worker.concurrency).toBe(2);
      // Taken in the new slot at once, not when the long job ends.
      expect(await within(3000, () => started.includes("next"))).toBe(true);
      expect(started).toEqual(["long", "next"]);
    } finally {
      release();
      await worker.close();
      await connection.quit();
    }
  });
});
