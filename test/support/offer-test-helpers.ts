// Helpers of the tests of runs offered to workers (queue run-offer.ts): a process that hears offers and
// takes none, and a deployment where only a given worker is seen alive.
import { createRedis, parseRunOffer, type RunOffer, workerChannel } from "@agentq/queue";
import { sqlPoolOf } from "../../packages/core/src/store/create-prisma-client.ts";
import { upsertWorkerPresence } from "../../packages/core/src/store/statements/worker-statements.ts";
import { sleep, type TestStack } from "./test-stack.ts";

/** A process listening on `workerId`'s channel that keeps what it is offered and takes none of it. */
export async function listeningWorker(stack: TestStack, workerId: string): Promise<{ offers: RunOffer[]; close: () => Promise<void> }> {
  const subscriber = createRedis({ url: stack.workerConfig.redisUrl, maxRetriesPerRequest: null });
  const offers: RunOffer[] = [];
  subscriber.on("message", (_channel: string, text: string) => {
    const offer = parseRunOffer(text);
    if (offer) offers.push(offer);
  });
  await subscriber.subscribe(workerChannel(stack.workerConfig.queuePrefix, workerId));
  return { offers, close: async () => void (await subscriber.quit()) };
}

/**
 * Runs `body` while `worker` is the only worker seen, a moment ago with its slots free (the live
 * worker's row is gone until its next beat, ten seconds away), then puts the live worker's row back as
 * that beat would leave it.
 */
export async function asOnlyWorkerSeen(
  stack: TestStack,
  worker: { id: string; concurrency: number; leaseMs: number | null },
  body: () => Promise<void>,
): Promise<void> {
  await stack.prisma.$executeRaw`DELETE FROM workers`;
  await stack.prisma.$executeRaw`INSERT INTO workers (id, host, started_at, last_seen_at, concurrency, active_runs, lease_ms)
    VALUES (${worker.id}, 'elsewhere', now(), now(), ${worker.concurrency}, 0, ${worker.leaseMs})`;
  // The API offers new runs to the workers as it last read them, every 100 ms in tests (test-api.ts):
  // a few reads later, it has read these rows.
  await sleep(300);
  try {
    await body();
  } finally {
    const live = stack.workers[0]!.workerId;
    await stack.prisma.$executeRaw`DELETE FROM workers WHERE id = ${worker.id}`;
    await upsertWorkerPresence(sqlPoolOf(stack.prisma), {
      id: live,
      host: "test",
      startedAt: new Date(),
      concurrency: stack.workerConfig.concurrency,
      activeRuns: 0,
      leaseMs: stack.workerConfig.leaseMs,
    });
  }
}
