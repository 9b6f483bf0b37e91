import { afterAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { RUN_QUEUE_NAME, RunQueue } from "@agentq/queue";
import { createTestRedis, deleteKeysWithPrefix, uniqueQueuePrefix } from "./support/redis.ts";

describe("RunQueue.ensureScheduled (what the reconciler uses)", () => {
  const redis = createTestRedis();
  const prefix = uniqueQueuePrefix();
  const queue = new RunQueue({ connection: redis, prefix });
  afterAll(async () => {
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });

  const jobs = async () => Object.values(await queue.queue.getJobCounts()).reduce((sum, count) => sum + count, 0);

  it("keeps a live job, adds none for a run that moved on meanwhile, and adds one for a run that still needs it", async () => {
    await queue.schedule("run_live", { lastEventSeq: 1, leaseVersion: 0 });
    expect(await queue.ensureScheduled("run_live", { lastEventSeq: 1, leaseVersion: 0 }, async () => true)).toBe("live");
    expect(await jobs()).toBe(1);

    // Read as queued by the sweep, parked by the time Redis was checked: no useless job.
    let asked = 0;
    const movedOn = await queue.ensureScheduled("run_parked", { lastEventSeq: 1, leaseVersion: 0 }, async () => {
      asked += 1;
      return false;
    });
    expect(movedOn).toBe("not_needed");
    expect(asked).toBe(1);
    expect(await jobs()).toBe(1);

    expect(await queue.ensureScheduled("run_lost", { lastEventSeq: 3, leaseVersion: 1 }, async () => true)).toBe("scheduled");
    expect(await queue.queue.getJob("run-run_lost-3-1")).toBeDefined();
    expect(await jobs()).toBe(2);
  });
});

describe("RunQueue.schedule", () => {
  const redis = createTestRedis();
  const prefix = uniqueQueuePrefix();
  const queue = new RunQueue({ connection: redis, prefix });
  afterAll(async () => {
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });

  it("hands out a run that has started before (a decided approval) ahead of runs no worker has taken yet", async () => {
    await queue.schedule("run_new_1", { lastEventSeq: 1, leaseVersion: 0 });
    await queue.schedule("run_new_2", { lastEventSeq: 1, leaseVersion: 0 });
    await queue.schedule("run_resumed", { lastEventSeq: 9, leaseVersion: 1 });
    await queue.schedule("run_recovered", { lastEventSeq: 4, leaseVersion: 2 });
    const worker = new Worker(RUN_QUEUE_NAME, null, { connection: redis.duplicate(), prefix, autorun: false });
    try {
      const order: string[] = [];
      for (let index = 0; index < 4; index += 1) {
        const job = await worker.getNextJob(`token-${index}`, { block: false });
        order.push(job?.data.run_id);
      }
      expect(order).toEqual(["run_resumed", "run_recovered", "run_new_1", "run_new_2"]);
    } finally {
      await worker.close(true);
    }
  });
});
