import type { Redis } from "ioredis";
import type { RunChannelMessage } from "@agentq/core";
import { runChannel } from "@agentq/queue";

export type RunChannelListener = (message: RunChannelMessage) => void;

/**
 * One Redis subscriber connection per API instance, shared by every WebSocket and SSE client: a
 * run's channel is subscribed while at least one client follows the run.
 */
export class RunSubscriptionHub {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #listeners = new Map<string, Set<RunChannelListener>>();
  /** The SUBSCRIBE of each channel that has listeners, settled once Redis confirmed it. */
  readonly #ready = new Map<string, Promise<void>>();

  constructor(subscriber: Redis, prefix: string) {
    this.#redis = subscriber;
    this.#prefix = prefix;
    subscriber.on("message", (channel: string, text: string) => {
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

  /** Starts delivering the run's messages; resolves once the subscription is active in Redis. */
  async subscribe(runId: string, listener: RunChannelListener): Promise<() => void> {
    const channel = runChannel(this.#prefix, runId);
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
      // Every follower of the channel waits for this one SUBSCRIBE: a second follower that
      // arrived while it was in flight would otherwise replay before the channel is live and
      // learn of events published meanwhile only from its next poll.
      const ready = this.#redis.subscribe(channel).then(() => undefined);
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
        this.#redis.unsubscribe(channel).catch(() => undefined);
      }
    };
    try {
      await ready;
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
