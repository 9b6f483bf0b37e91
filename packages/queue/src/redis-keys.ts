/**
 * Every Redis key and channel agentq creates carries the QUEUE_PREFIX (docs/design.md, "Scale-out"),
 * so several deployments can share one Redis. On a Redis Cluster the prefix is braced (`{agentq}`):
 * BullMQ's keys, the rate limiter's and the control channel share its one slot; run channels are
 * spread over the cluster instead (runChannel).
 */

/**
 * A run's events and deltas. On one server, `<prefix>:run:<id>`. On a cluster the channel is a
 * sharded one (SPUBLISH, pub-sub.ts) and carries the run id as its hash tag, `agentq:run:{<id>}`
 * (the prefix without its braces, which would otherwise pin every run to the queue's slot): each
 * run's messages go to the one shard that owns its slot, and runs spread over every shard.
 */
export function runChannel(prefix: string, runId: string, cluster = false): string {
  return cluster ? `${prefix.replace(/[{}]/g, "")}:run:{${runId}}` : `${prefix}:run:${runId}`;
}

/** Control messages to workers (cancel a run that one of them is executing). In the queue's slot on a cluster. */
export function controlChannel(prefix: string): string {
  return `${prefix}:control`;
}

/** Where the rate limiter (rate-limiter-flexible) counts a limit's window: `<keyPrefix>:<user id>` under this. In the queue's slot on a cluster. */
export function rateLimitKeyPrefix(prefix: string, pointsPerMinute: number): string {
  return `${prefix}:ratelimit:${pointsPerMinute}`;
}
