/**
 * Every Redis key and channel agentq creates carries the QUEUE_PREFIX (docs/design.md, "Scale-out"),
 * so several deployments can share one Redis. On a Redis Cluster the prefix is braced (`{agentq}`):
 * BullMQ's keys, the rate limiter's and the control channel share its one slot; users' run channels
 * are spread over the cluster instead (userRunsChannel).
 */

/**
 * The events and deltas of every run of one user, each message naming its run (RunChannelMessage).
 * One channel per user rather than per run: an API instance subscribes once while it has followers
 * of any of the user's runs, so following one more run of that user costs no Redis round trip. It
 * carries that user's runs only: the publisher addresses a run's messages to its owner's channel.
 * On one server, `<prefix>:user:<id>`. On a cluster the channel is a sharded one (SPUBLISH,
 * pub-sub.ts) and carries the user id as its hash tag, `agentq:user:{<id>}` (the prefix without its
 * braces, which would otherwise pin every user to the queue's slot): each user's messages go to the
 * one shard that owns its slot, and users spread over every shard.
 */
export function userRunsChannel(prefix: string, userId: string, cluster = false): string {
  return cluster ? `${prefix.replace(/[{}]/g, "")}:user:{${userId}}` : `${prefix}:user:${userId}`;
}

/** Control messages to workers (cancel a run that one of them is executing). In the queue's slot on a cluster. */
export function controlChannel(prefix: string): string {
  return `${prefix}:control`;
}

/**
 * Runs offered to one worker process (run-offer.ts): a new run admission let through, or a run whose
 * approval was decided, goes to a worker directly rather than through the queue. In the queue's slot on
 * a cluster, like the control channel.
 */
export function workerChannel(prefix: string, workerId: string): string {
  return `${prefix}:worker:${workerId}`;
}

/**
 * A worker's channel for offers of new runs with their context (run-offer.ts `start`), which a worker
 * of an earlier release would not read: it does not listen here, so such an offer reaches nobody and
 * is sent again on workerChannel without the context.
 */
export function workerStartChannel(prefix: string, workerId: string): string {
  return `${workerChannel(prefix, workerId)}:start`;
}

/**
 * A worker's channel for decided approvals whose commit the deciding API instance leaves to it
 * (run-decision-offer.ts): a worker of an earlier release does not listen here, so such an offer
 * reaches nobody and the API commits the decision itself.
 */
export function workerDecisionChannel(prefix: string, workerId: string): string {
  return `${workerChannel(prefix, workerId)}:decide`;
}

/** Where workers answer one API instance's decision offers (run-decision-offer.ts). In the queue's slot on a cluster. */
export function apiDecisionReplyChannel(prefix: string, instanceId: string): string {
  return `${prefix}:api:${instanceId}:decided`;
}

/** Where the rate limiter (rate-limiter-flexible) counts a limit's window: `<keyPrefix>:<user id>` under this. In the queue's slot on a cluster. */
export function rateLimitKeyPrefix(prefix: string, pointsPerMinute: number): string {
  return `${prefix}:ratelimit:${pointsPerMinute}`;
}
