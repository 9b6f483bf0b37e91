import type { OwnedRun, RunChannelMessage } from "@agentq/core";
import {
  isRedisCluster,
  onChannelMessage,
  parseRunChannelPayload,
  type RedisClient,
  subscribeChannel,
  unsubscribeChannel,
  userRunsChannel,
} from "@agentq/queue";
import { withDeadline } from "../with-deadline.ts";

export type RunChannelListener = (message: RunChannelMessage) => void;

/**
 * How long `subscribe` waits for Redis to confirm a SUBSCRIBE. Default 2000 ms: past it the follower
 * goes on (it replays from Postgres and polls) while the subscription completes in the background,
 * so a Redis failover slows live delivery down instead of holding a WebSocket client in silence.
 */
const SUBSCRIBE_WAIT_MS = 2000;

/** One user's channel as this instance holds it. */
interface UserChannelSubscription {
  /**
   * The SUBSCRIBE, settled once Redis confirmed it. Every follower of the user's runs waits for this
   * one: a second follower (of the same run or another of the user's) that arrived while it was in
   * flight would otherwise replay before the channel is live and learn of events published meanwhile
   * only from its next poll.
   */
  ready: Promise<void>;
  /** The listeners of each of the user's runs followed here; the channel is held while one is left. */
  runs: Map<string, Set<RunChannelListener>>;
}

/**
 * One Redis subscriber connection per API instance, shared by every WebSocket and SSE client: a
 * user's channel (userRunsChannel) is subscribed while at least one client follows any run of that
 * user, and each message on it goes to the listeners of the run it names, and to no other.
 */
export class RunSubscriptionHub {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #cluster: boolean;
  readonly #channels = new Map<string, UserChannelSubscription>();
  readonly #subscribeWaitMs: number;

  /** `subscribeWaitMs`: how long a follower waits for Redis to confirm a SUBSCRIBE (default SUBSCRIBE_WAIT_MS). */
  constructor(subscriber: RedisClient, prefix: string, options: { subscribeWaitMs?: number } = {}) {
    this.#redis = subscriber;
    this.#prefix = prefix;
    this.#subscribeWaitMs = options.subscribeWaitMs ?? SUBSCRIBE_WAIT_MS;
    this.#cluster = isRedisCluster(subscriber);
    onChannelMessage(subscriber, (channel, text) => {
      const subscription = this.#channels.get(channel);
      if (!subscription) return;
      // One message, or the several the publisher sent together, in order.
      for (const message of parseRunChannelPayload(text) ?? []) {
        // Looked up among this channel's runs only: a run is followed on its owner's channel.
        const listeners = subscription.runs.get(message.run_id);
        if (!listeners) continue;
        for (const listener of listeners) listener(message);
      }
    });
  }

  /**
   * Starts delivering the run's messages; resolves once the subscription of its owner's channel is
   * active in Redis, or after SUBSCRIBE_WAIT_MS when Redis has not confirmed it yet (it goes on in
   * the background). `run.userId` is whose channel to listen on: a caller that names someone else's
   * run under its own user hears nothing of it, as that run is published on its owner's channel.
   */
  async subscribe(run: OwnedRun, listener: RunChannelListener): Promise<() => void> {
    const channel = userRunsChannel(this.#prefix, run.userId, this.#cluster);
    let subscription = this.#channels.get(channel);
    if (!subscription) {
      const created: UserChannelSubscription = { ready: subscribeChannel(this.#redis, channel), runs: new Map() };
      // A refused SUBSCRIBE is not kept: the user's next follower here asks Redis again. Its waiting
      // followers fail; those that went on past the wait keep polling Postgres.
      created.ready.catch(() => {
        if (this.#channels.get(channel) === created) this.#channels.delete(channel);
      });
      this.#channels.set(channel, created);
      subscription = created;
    }
    let listeners = subscription.runs.get(run.id);
    if (!listeners) {
      listeners = new Set();
      subscription.runs.set(run.id, listeners);
    }
    listeners.add(listener);
    const held = subscription;
    const runListeners = listeners;
    const unsubscribe = () => {
      if (this.#channels.get(channel) !== held || !runListeners.delete(listener)) return;
      if (runListeners.size === 0 && held.runs.get(run.id) === runListeners) held.runs.delete(run.id);
      if (held.runs.size === 0) {
        this.#channels.delete(channel);
        unsubscribeChannel(this.#redis, channel).catch(() => undefined);
      }
    };
    try {
      await withDeadline(held.ready, this.#subscribeWaitMs, () => undefined);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** Stops delivering. The subscriber connection is its creator's to close (run-services.ts). */
  close(): void {
    this.#channels.clear();
  }
}
