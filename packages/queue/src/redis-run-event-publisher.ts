import type { RunChannelMessage, RunEventPublisher, RunEventRecord } from "@agentq/core";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";
import { publishMessage } from "./pub-sub.ts";
import { controlChannel, runChannel } from "./redis-keys.ts";

/** Publishes committed events and live deltas on the run's channel (best effort: subscribers replay from Postgres). */
export function createRedisRunEventPublisher(redis: RedisClient, prefix: string): RunEventPublisher {
  const cluster = isRedisCluster(redis);
  const publish = async (runId: string, message: RunChannelMessage) => {
    await publishMessage(redis, runChannel(prefix, runId, cluster), JSON.stringify(message));
  };
  return {
    publishEvents: (runId: string, events: RunEventRecord[]) => publish(runId, { kind: "events", run_id: runId, events }),
    publishDelta: (runId: string, text: string) => publish(runId, { kind: "delta", run_id: runId, text }),
  };
}

/** Messages every worker receives: a run to cancel, a job to stop (only its owner acts on it). */
export type ControlMessage = { type: "cancel"; run_id: string } | { type: "job.stop"; job_id: string };

export async function publishControl(redis: RedisClient, prefix: string, message: ControlMessage): Promise<void> {
  await publishMessage(redis, controlChannel(prefix), JSON.stringify(message));
}
