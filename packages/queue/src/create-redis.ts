import { Redis, type RedisOptions } from "ioredis";

export interface CreateRedisOptions {
  url: string;
  /**
   * `null` for connections BullMQ workers block on (BullMQ requires it); a small number for
   * request paths, so an enqueue fails fast when Redis is unreachable instead of hanging.
   */
  maxRetriesPerRequest: number | null;
  /** Name shown in CLIENT LIST. */
  connectionName?: string;
  lazyConnect?: boolean;
  /**
   * Sends the commands issued in one event-loop tick as one write (ioredis auto-pipelining). For a
   * connection many runs publish on at once; default false (BullMQ's connections keep their order
   * and timing as BullMQ expects).
   */
  autoPipelining?: boolean;
}

export function createRedis(options: CreateRedisOptions): Redis {
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest: options.maxRetriesPerRequest,
    enableOfflineQueue: options.maxRetriesPerRequest === null,
    connectionName: options.connectionName,
    lazyConnect: options.lazyConnect ?? false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  return new Redis(options.url, redisOptions);
}
