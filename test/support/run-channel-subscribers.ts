// What the run-following tests (runs-sse, runs-websocket) check on Redis: the API holds one
// subscription of a run's pub/sub channel while any client follows the run, and none after.
import type { Redis } from "ioredis";
import { runChannel } from "@agentq/queue";
import { sleep } from "./test-stack.ts";

/** Waits until the run's pub/sub channel has `expected` subscribers (0 or 1); throws with the count it has after `timeoutMs`. */
export async function waitForChannelSubscribers(redis: Redis, queuePrefix: string, runId: string, expected: number, timeoutMs = 20_000): Promise<void> {
  const count = async () => Number(((await redis.pubsub("NUMSUB", runChannel(queuePrefix, runId))) as [string, number])[1]);
  const deadline = Date.now() + timeoutMs;
  while ((await count()) !== expected) {
    if (Date.now() > deadline) throw new Error(`run ${runId}: expected ${expected} channel subscribers, have ${await count()}`);
    await sleep(50);
  }
}
