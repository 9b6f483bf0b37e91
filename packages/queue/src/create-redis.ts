import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import { parseRedisUrl } from "@agentq/core";

/**
 * A connection to agentq's Redis: one server (`Redis`) or a Redis Cluster (`Cluster`), as
 * `REDIS_URL` says. Both speak the same commands; BullMQ, the pub/sub hub and the rate limiter take
 * either. Every Redis client agentq opens comes from `createRedis`, so a cluster works everywhere.
 */
export type RedisClient = Redis | Cluster;

export interface CreateRedisOptions {
  /** REDIS_URL: `redis://`, `rediss://`, `redis+cluster://` or `rediss+cluster://` (core's parseRedisUrl). */
  url: string;
  /**
   * `null` for connections BullMQ workers block on (BullMQ requires it) and for every connection
   * whose commands must survive a reconnection or a cluster failover (they wait for it); a small
   * number for request paths, so an enqueue fails fast when Redis is unreachable instead of hanging.
   */
  maxRetriesPerRequest: number | null;
  /**
   * Queue commands while disconnected and send them once connected. Default: `maxRetriesPerRequest
   * === null` (a connection that waits out an outage queues; a fail-fast one answers at once).
   */
  offlineQueue?: boolean;
  /** Name shown in CLIENT LIST (on every node of a cluster). */
  connectionName?: string;
  lazyConnect?: boolean;
  /**
   * Sends the commands issued in one event-loop tick as one write (ioredis auto-pipelining; on a
   * cluster, one pipeline per node). For a connection many runs publish on at once; default false
   * (BullMQ's connections keep their order and timing as BullMQ expects).
   */
  autoPipelining?: boolean;
  /**
   * A connection that subscribes (pub-sub.ts). On a cluster it subscribes to sharded channels, with
   * one connection per master that ioredis moves to the new master after a failover. Default false.
   */
  shardedSubscriber?: boolean;
}

/** Reconnection delay: 200 ms more per attempt, at most 2 s. */
const retryDelay = (attempt: number) => Math.min(attempt * 200, 2000);

/**
 * How long a cluster command is retried while the node that owned its slot is down, before it
 * fails: FAILOVER_RETRIES × FAILOVER_RETRY_DELAY_MS = 20 s, enough for a replica to take over
 * (cluster-node-timeout, 15 s by default, plus the election). Only for connections that wait
 * (`maxRetriesPerRequest: null`); fail-fast ones give up after ioredis' default 16 × 100 ms.
 */
const FAILOVER_RETRY_DELAY_MS = 250;
const FAILOVER_RETRIES = 80;

/**
 * A client for `REDIS_URL` (see CreateRedisOptions).
 *
 * Built as `new Redis<"legacy">` / `new Cluster<"legacy">` from options that `satisfy` their type rather
 * than have it: the options never set `replyMapping`, so the client is the default ("legacy") one, but
 * options typed `RedisOptions` allow either mapping, so TypeScript inferred `Redis<"legacy" | "resp3">`,
 * and relating that to `Redis` made it compute the variance of ioredis' whole command interface (about
 * 2.5 of tsc's 13 s of checking, at every `npm test`). Test helpers that build a `Redis` do the same.
 */
export function createRedis(options: CreateRedisOptions): RedisClient {
  const offlineQueue = options.offlineQueue ?? options.maxRetriesPerRequest === null;
  const target = parseRedisUrl(options.url);
  if (target.kind === "server") {
    const redisOptions = {
      maxRetriesPerRequest: options.maxRetriesPerRequest,
      enableOfflineQueue: offlineQueue,
      connectionName: options.connectionName,
      lazyConnect: options.lazyConnect ?? false,
      retryStrategy: retryDelay,
      enableAutoPipelining: options.autoPipelining ?? false,
    } satisfies RedisOptions;
    return new Redis<"legacy">(options.url, redisOptions);
  }
  const waits = options.maxRetriesPerRequest === null;
  const clusterOptions = {
    // BullMQ reads maxRetriesPerRequest from redisOptions on a cluster (null for its workers).
    redisOptions: {
      maxRetriesPerRequest: options.maxRetriesPerRequest,
      connectionName: options.connectionName,
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
    enableOfflineQueue: offlineQueue,
    // "ready" only once CLUSTER INFO says the cluster serves every slot.
    enableReadyCheck: true,
    lazyConnect: options.lazyConnect ?? false,
    clusterRetryStrategy: retryDelay,
    enableAutoPipelining: options.autoPipelining ?? false,
    shardedSubscribers: options.shardedSubscriber ?? false,
    ...(waits ? { retryDelayOnFailover: FAILOVER_RETRY_DELAY_MS, retryDelayOnClusterDown: FAILOVER_RETRY_DELAY_MS, maxRedirections: FAILOVER_RETRIES } : {}),
    // Managed clusters with TLS (ElastiCache, Memorystore) announce host names that their
    // certificates name: connect by that name instead of the address it resolves to.
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  } satisfies ClusterOptions;
  return new Cluster<"legacy">(target.nodes, clusterOptions);
}

/** Whether `client` is a cluster connection (its commands go to the node owning each key's slot). */
export function isRedisCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}
