import type { OwnedRun, RunChannelMessage, RunEventPublisher, RunEventRecord } from "@agentq/core";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";
import { publishMessage } from "./pub-sub.ts";
import { controlChannel, userRunsChannel } from "./redis-keys.ts";

/**
 * Publishes committed events and live deltas on the channel of the run's owner, tagged with the run's
 * id (best effort: subscribers replay from Postgres).
 */
export function createRedisRunEventPublisher(redis: RedisClient, prefix: string): RunEventPublisher {
  const cluster = isRedisCluster(redis);
  const publish = async (run: OwnedRun, message: RunChannelMessage) => {
    await publishMessage(redis, userRunsChannel(prefix, run.userId, cluster), JSON.stringify(message));
  };
  return {
    publishEvents: (run: OwnedRun, events: RunEventRecord[]) => publish(run, { kind: "events", run_id: run.id, events }),
    publishDelta: (run: OwnedRun, text: string) => publish(run, { kind: "delta", run_id: run.id, text }),
  };
}

/** Messages every worker receives: a run to cancel, a job to stop (only its owner acts on it). */
export type ControlMessage = { type: "cancel"; run_id: string } | { type: "job.stop"; job_id: string };

export async function publishControl(redis: RedisClient, prefix: string, message: ControlMessage): Promise<void> {
  await publishMessage(redis, controlChannel(prefix), JSON.stringify(message));
}
