import type { Worker } from "bullmq";
import type { Cluster } from "ioredis";
import { isRedisCluster, type RedisClient } from "./create-redis.ts";

/**
 * How long a graceful close (a QUIT, a BullMQ close) may take before what it closes is dropped.
 * Default 3000 ms: a QUIT to a live Redis answers in a millisecond, and a close still waiting after
 * seconds waits for something that is gone (below).
 */
export const CLOSE_TIMEOUT_MS = 3000;

/** What the close steps log: each step's time at debug, a step that ran out of time at warn. */
export interface CloseLogger {
  debug(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

/** One step of a shutdown. */
export interface CloseStep {
  /** Names the step in the logs: a connection's name, "run jobs (BullMQ worker)". */
  name: string;
  /** The graceful close. */
  close(): Promise<unknown>;
  /**
   * Drops what `close` closes, at once, when `close` has not finished in time or failed. Default none:
   * the step is given up on (a later step closes what it waits on).
   */
  disconnect?(): void;
}

export interface CloseStepOptions {
  logger: CloseLogger;
  /** Default CLOSE_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Runs one step of a shutdown: `close` (graceful), then `disconnect` (drop at once) when `close` has not
 * finished within the timeout, or failed. It never rejects and never waits past the timeout, so a
 * process stopped during a Redis failover stops (a SIGTERM must not hang): a QUIT waits for the replies
 * still pending, and a BullMQ worker's close can wait forever on a Cluster (closeWorkerOrDisconnect).
 */
export async function closeOrDisconnect(step: CloseStep, options: CloseStepOptions): Promise<void> {
  const { name } = step;
  const timeoutMs = options.timeoutMs ?? CLOSE_TIMEOUT_MS;
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    step.close().then(
      () => "closed" as const,
      (error: unknown) => error,
    ),
    new Promise<"timed_out">((resolve) => {
      timer = setTimeout(() => resolve("timed_out"), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  const elapsedMs = Date.now() - startedAt;
  if (outcome === "closed") {
    options.logger.debug({ step: name, elapsed_ms: elapsedMs }, `closed ${name}`);
    return;
  }
  const next = step.disconnect === undefined ? "going on without it" : "disconnecting it";
  if (outcome === "timed_out") options.logger.warn({ step: name, timeout_ms: timeoutMs }, `${name} did not close within ${timeoutMs} ms; ${next}`);
  else options.logger.warn({ step: name, err: outcome, elapsed_ms: elapsedMs }, `closing ${name} failed; ${next}`);
  step.disconnect?.();
}

/** The name createRedis gave the connection (CLIENT LIST shows it too), to name its close in the logs. */
function connectionNameOf(redis: RedisClient): string {
  const name = isRedisCluster(redis) ? redis.options.redisOptions?.connectionName : redis.options.connectionName;
  return name ?? "redis connection";
}

/**
 * QUITs `redis` (the replies still pending arrive first), or disconnects it: at once when it is not
 * connected (a QUIT would wait for a reconnection), or when the QUIT does not finish in time. The
 * logs name the step after the connection's name.
 */
export async function quitOrDisconnect(redis: RedisClient, options: CloseStepOptions): Promise<void> {
  const name = connectionNameOf(redis);
  if (redis.status === "end") return;
  if (redis.status !== "ready") {
    options.logger.debug({ step: name, status: redis.status }, `${name} is not connected; disconnected it`);
    redis.disconnect();
    return;
  }
  await closeOrDisconnect({ name, close: () => redis.quit(), disconnect: () => redis.disconnect() }, options);
}

/**
 * Closes a BullMQ worker (its jobs in progress finish first, so `timeoutMs` must cover them), or, when
 * that takes too long, disconnects the blocking connection BullMQ opened for it. The connection the
 * worker was given is the caller's to close.
 *
 * Why a worker's close can wait forever on a Cluster (BullMQ 6.7, ioredis 6.0; BullMQ issue #4656 is
 * the same wait on one server that never answered): BullMQ's close disconnects its blocking connection
 * and waits for its main loop, and a main loop that was recovering that connection (a master killed
 * under its BZPOPMIN, a second or two before the close) waits for the connection's "ready" or "end".
 * Neither comes: the Cluster's status goes disconnecting, close, end, then close again as its last
 * node connections close, or it stays disconnecting when none was left. Marking it ended, as BullMQ
 * itself does after a QUIT, lets the main loop and so BullMQ's close finish in the background, instead
 * of leaving BullMQ's timers running.
 */
export async function closeWorkerOrDisconnect(worker: Worker, name: string, options: CloseStepOptions): Promise<void> {
  const disconnect = () => {
    const blockingClient = worker.getBackend().blockingClient;
    blockingClient
      ?.then((client) => {
        client.disconnect();
        // A Cluster with no node connection left emits nothing more: say what ioredis would have.
        // (BullMQ's client is its wrapper of the ioredis Cluster the worker was given a duplicate of.)
        if (!client.isCluster || client.status === "end" || (client as unknown as Cluster).nodes().length > 0) return;
        client.status = "end";
        client.emit("end");
      })
      .catch(() => undefined);
  };
  await closeOrDisconnect({ name, close: () => worker.close(), disconnect }, options);
}
