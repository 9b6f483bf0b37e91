import type { Redis } from "ioredis";
import type { RunChannelMessage, RunEventPublisher, RunEventRecord } from "@agentq/core";
import { controlChannel, runChannel } from "./redis-keys.ts";

/** Publishes committed events and live deltas on the run's channel (best effort: subscribers replay from Postgres). */
export function createRedisRunEventPublisher(redis: Redis, prefix: string): RunEventPublisher {
  const publish = async (runId: string, message: RunChannelMessage) => {
    await redis.publish(runChannel(prefix, runId), JSON.stringify(message));
  };
  return {
    publishEvents: (runId: string, events: RunEventRecord[]) => publish(runId, { kind: "events", run_id: runId, events }),
    publishDelta: (runId: string, text: string) => publish(runId, { kind: "delta", run_id: runId, text }),
  };
}

/** Messages every worker receives: a run to cancel, a job to stop (only its owner acts on it). */
export type ControlMessage = { type: "cancel"; run_id: string } | { type: "job.stop"; job_id: string };

export async function publishControl(redis: Redis, prefix: string, message: ControlMessage): Promise<void> {
  await redis.publish(controlChannel(prefix), JSON.stringify(message));
}
