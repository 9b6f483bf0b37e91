import type { Redis } from "ioredis";
import type { RunChannelMessage } from "@agentq/core/events/run-event";
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
    }
    listeners.add(listener);
    if (listeners.size === 1) await this.#redis.subscribe(channel);
    return () => {
      const current = this.#listeners.get(channel);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.#listeners.delete(channel);
        this.#redis.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#redis.quit().catch(() => undefined);
  }
}
