import type { RunChannelMessage } from "@agentq/core";
import { isRedisCluster, onChannelMessage, type RedisClient, runChannel, subscribeChannel, unsubscribeChannel } from "@agentq/queue";
import { withDeadline } from "../with-deadline.ts";

export type RunChannelListener = (message: RunChannelMessage) => void;

/**
 * How long `subscribe` waits for Redis to confirm a SUBSCRIBE. Default 2000 ms: past it the follower
 * goes on (it replays from Postgres and polls) while the subscription completes in the background,
 * so a Redis failover slows live delivery down instead of holding a WebSocket client in silence.
 */
const SUBSCRIBE_WAIT_MS = 2000;

/**
 * One Redis subscriber connection per API instance, shared by every WebSocket and SSE client: a
 * run's channel is subscribed while at least one client follows the run.
 */
export class RunSubscriptionHub {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #cluster: boolean;
  readonly #listeners = new Map<string, Set<RunChannelListener>>();
  /** The SUBSCRIBE of each channel that has listeners, settled once Redis confirmed it. */
  readonly #ready = new Map<string, Promise<void>>();

  constructor(subscriber: RedisClient, prefix: string) {
    this.#redis = subscriber;
    this.#prefix = prefix;
    this.#cluster = isRedisCluster(subscriber);
    onChannelMessage(subscriber, (channel, text) => {
      const listeners = this.#listeners.get(channel);
      if (!listeners) return;
      let message: RunChannelMessage;
      try {
        message = JSON.parse(text) as RunChannelMessage;
      } catch {
        return;
      }
      for (const listener of listeners) listener(message);
    });
  }

  /**
   * Starts delivering the run's messages; resolves once the subscription is active in Redis, or
   * after SUBSCRIBE_WAIT_MS when Redis has not confirmed it yet (it goes on in the background).
   */
  async subscribe(runId: string, listener: RunChannelListener): Promise<() => void> {
    const channel = runChannel(this.#prefix, runId, this.#cluster);
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
      // Every follower of the channel waits for this one SUBSCRIBE: a second follower that
      // arrived while it was in flight would otherwise replay before the channel is live and
      // learn of events published meanwhile only from its next poll.
      const ready = subscribeChannel(this.#redis, channel);
      this.#ready.set(channel, ready);
      ready.catch(() => undefined);
    }
    listeners.add(listener);
    const ready = this.#ready.get(channel);
    const unsubscribe = () => {
      const current = this.#listeners.get(channel);
      if (current !== listeners || !current.delete(listener)) return;
      if (current.size === 0) {
        this.#listeners.delete(channel);
        this.#ready.delete(channel);
        unsubscribeChannel(this.#redis, channel).catch(() => undefined);
      }
    };
    try {
      await withDeadline(ready ?? Promise.resolve(), SUBSCRIBE_WAIT_MS, () => undefined);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#ready.clear();
    await this.#redis.quit().catch(() => undefined);
  }
}
