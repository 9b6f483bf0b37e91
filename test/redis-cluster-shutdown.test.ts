// Stopping during a Redis Cluster failover (the hang of redis-cluster.test.ts' teardown): a BullMQ
// worker closed a second or two after the master its blocking connection was on died waits forever
// in BullMQ's own close (queue close-or-disconnect.ts says why). A private cluster, as there.
import { randomBytes } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeWorkerOrDisconnect, createRedis, quitOrDisconnect, type RedisClient } from "@agentq/queue";
import { startTestRedisCluster, type TestRedisCluster } from "./support/redis-cluster.ts";
import { sleep } from "./support/test-stack.ts";
import { waitUntil } from "./support/wait-until.ts";

describe("stopping a worker while its Redis master fails over", () => {
  let cluster: TestRedisCluster;
  const connections: RedisClient[] = [];
  const silent = { debug: () => undefined, warn: () => undefined };

  beforeAll(async () => {
    cluster = await startTestRedisCluster();
  });
  afterAll(async () => {
    for (const connection of connections) await quitOrDisconnect(connection, { logger: silent });
    await cluster?.stop();
  });

  it("a worker closed a moment after its master died stops within the close timeout, and BullMQ's close still finishes", async () => {
    const prefix = `{agentq-shutdown-${randomBytes(4).toString("hex")}}`;
    const connect = (connectionName: string) => {
      const connection = createRedis({ url: cluster.url, maxRetriesPerRequest: null, connectionName });
      connection.on("error", () => undefined);
      connections.push(connection);
      return connection;
    };
    const queue = new Queue("runs", { connection: connect("agentq-test-producer"), prefix });
    let processed = 0;
    const worker = new Worker(
      "runs",
      async () => {
        processed += 1;
      },
      { connection: connect("agentq-test-worker"), prefix },
    );
    worker.on("error", () => undefined);
    let bullmqClosed = false;
    worker.once("closed", () => (bullmqClosed = true));
    await queue.add("job", {});
    await waitUntil("the job processed", () => (processed === 1 ? true : undefined));

    // The idle worker blocks (BZPOPMIN) on the master of the queue's slot; it is stopped while it recovers.
    cluster.kill(await cluster.masterOf(prefix));
    await sleep(1500);
    const warnings: string[] = [];
    const startedAt = Date.now();
    await closeWorkerOrDisconnect(worker, "run jobs (BullMQ worker)", {
      logger: { ...silent, warn: (_fields, message) => void warnings.push(message) },
      timeoutMs: 2000,
    });
    expect(Date.now() - startedAt).toBeLessThan(3000);
    // When it had to be given up on, the warning names it; either way BullMQ's close ends, and with it its timers.
    for (const warning of warnings) expect(warning).toBe("run jobs (BullMQ worker) did not close within 2000 ms; disconnecting it");
    await waitUntil("BullMQ's close", () => (bullmqClosed ? true : undefined), 20_000);
    await Promise.race([queue.close(), sleep(3000)]);
  }, 60_000);
});
