// What the run-following tests (runs-sse, runs-websocket) check on Redis: the API holds one
// subscription of a user's run channel while any client follows any run of the user, and none after.
import type { Redis } from "ioredis";
import { userRunsChannel } from "@agentq/queue";
import { sleep } from "./test-stack.ts";

/** Waits until the user's run channel has `expected` subscribers (0 or 1); throws with the count it has after `timeoutMs`. */
export async function waitForUserChannelSubscribers(redis: Redis, queuePrefix: string, userId: string, expected: number, timeoutMs = 20_000): Promise<void> {
  const count = async () => Number(((await redis.pubsub("NUMSUB", userRunsChannel(queuePrefix, userId))) as [string, number])[1]);
  const deadline = Date.now() + timeoutMs;
  while ((await count()) !== expected) {
    if (Date.now() > deadline) throw new Error(`user ${userId}: expected ${expected} subscribers of their run channel, have ${await count()}`);
    await sleep(50);
  }
}
