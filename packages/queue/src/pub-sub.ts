import { isRedisCluster, type RedisClient } from "./create-redis.ts";

/**
 * agentq's pub/sub on one server or a cluster. One server: classic PUBLISH/SUBSCRIBE. A cluster:
 * sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7), where a message travels only within the shard
 * that owns its channel's slot; a classic PUBLISH on a cluster is copied to every node over the
 * cluster bus, so its cost grows with the cluster (docs/design.md, "Redis Cluster"). A cluster
 * subscriber must be created with `createRedis({ shardedSubscriber: true })`.
 */

export async function publishMessage(client: RedisClient, channel: string, text: string): Promise<void> {
  if (isRedisCluster(client)) await client.spublish(channel, text);
  else await client.publish(channel, text);
}

export async function subscribeChannel(client: RedisClient, channel: string): Promise<void> {
  if (isRedisCluster(client)) await client.ssubscribe(channel);
  else await client.subscribe(channel);
}

export async function unsubscribeChannel(client: RedisClient, channel: string): Promise<void> {
  if (isRedisCluster(client)) await client.sunsubscribe(channel);
  else await client.unsubscribe(channel);
}

/** Calls `listener` with each message of the channels `client` subscribed with subscribeChannel. */
export function onChannelMessage(client: RedisClient, listener: (channel: string, text: string) => void): void {
  client.on(isRedisCluster(client) ? "smessage" : "message", listener);
}
