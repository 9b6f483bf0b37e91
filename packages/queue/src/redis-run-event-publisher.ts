import type { OwnedRun, RunChannelMessage, RunEventPublisher, RunEventRecord } from "@agentq/core";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";
import { publishMessage } from "./pub-sub.ts";
import { controlChannel, userRunsChannel } from "./redis-keys.ts";

/**
 * Characters of JSON pending on one channel past which they are published at once rather than at the
 * end of the tick: a burst of large tool results makes several moderate messages, not one huge one.
 */
export const PUBLISH_BATCH_CHARACTERS = 256 * 1024;

/** The messages of one channel waiting for the end of the tick, and the callers waiting on them. */
interface PendingChannel {
  texts: string[];
  characters: number;
  settled: Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * Publishes committed events and live deltas on the channel of the run's owner, tagged with the run's
 * id (best effort: subscribers replay from Postgres).
 *
 * The messages of one channel published in the same tick leave as one PUBLISH, a JSON array of them
 * in the order given (a lone message stays a bare object): a worker's group commit settles the steps
 * of many runs at once, and each then publishes its events, which cost the worker, Redis and every API
 * instance subscribed a message per run and step (1,000-run bench: W1 7 PUBLISH a run, now 0.73; W2 9,
 * now 1.5). Order holds per channel: the batches go out on one connection in the order they are sent.
 */
export function createRedisRunEventPublisher(redis: RedisClient, prefix: string): RunEventPublisher {
  const cluster = isRedisCluster(redis);
  const pending = new Map<string, PendingChannel>();
  let scheduled = false;

  const send = (channel: string, batch: PendingChannel) => {
    const text = batch.texts.length === 1 ? (batch.texts[0] as string) : `[${batch.texts.join(",")}]`;
    publishMessage(redis, channel, text).then(() => batch.settle(), batch.settle);
  };
  const flush = () => {
    scheduled = false;
    for (const [channel, batch] of pending) send(channel, batch);
    pending.clear();
  };
  const publish = (run: OwnedRun, message: RunChannelMessage): Promise<void> => {
    const channel = userRunsChannel(prefix, run.userId, cluster);
    const text = JSON.stringify(message);
    let batch = pending.get(channel);
    if (!batch) {
      let settle: PendingChannel["settle"] = () => undefined;
      const settled = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
      });
      batch = { texts: [], characters: 0, settled, settle };
      pending.set(channel, batch);
    }
    batch.texts.push(text);
    batch.characters += text.length;
    const { settled } = batch;
    if (batch.characters >= PUBLISH_BATCH_CHARACTERS) {
      pending.delete(channel);
      send(channel, batch);
    } else if (!scheduled) {
      scheduled = true;
      // After this turn's I/O callbacks and their promise chains: every run a commit settled has published by then.
      setImmediate(flush);
    }
    return settled;
  };
  return {
    publishEvents: (run: OwnedRun, events: RunEventRecord[]) => publish(run, { kind: "events", run_id: run.id, events }),
    publishDelta: (run: OwnedRun, text: string) => publish(run, { kind: "delta", run_id: run.id, text }),
  };
}

/**
 * A run channel's payload: one message, or several in order (createRedisRunEventPublisher), less
 * anything that is not an object; null when it is not JSON.
 */
export function parseRunChannelPayload(text: string): RunChannelMessage[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return messages.filter((message): message is RunChannelMessage => typeof message === "object" && message !== null);
}

/** Messages every worker receives: a run to cancel, a job to stop (only its owner acts on it). */
export type ControlMessage = { type: "cancel"; run_id: string } | { type: "job.stop"; job_id: string };

export async function publishControl(redis: RedisClient, prefix: string, message: ControlMessage): Promise<void> {
  await publishMessage(redis, controlChannel(prefix), JSON.stringify(message));
}
