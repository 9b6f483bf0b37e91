import { isRedisCluster, type RedisClient } from "./create-redis.ts";

/**
 * agentq's pub/sub on one server or a cluster. One server: classic PUBLISH/SUBSCRIBE. A cluster:
 * sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7), where a message travels only within the shard
 * that owns its channel's slot; a classic PUBLISH on a cluster is copied to every node over the
 * cluster bus, so its cost grows with the cluster (docs/design.md, "Redis Cluster"). A cluster
 * subscriber must be created with `createRedis({ shardedSubscriber: true })`.
 */

/** Publishes `text`; resolves to the number of subscribers it reached (on a cluster, those of the channel's shard). */
export async function publishMessage(client: RedisClient, channel: string, text: string): Promise<number> {
  // ioredis types SPUBLISH's reply as unknown; Redis answers an integer, as for PUBLISH.
  return isRedisCluster(client) ? Number(await client.spublish(channel, text)) : client.publish(channel, text);
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
