import type { RunEventRecord } from "@agentq/core/events/run-event";
import { listRunEvents } from "@agentq/core/runs/run-queries";
import { isTerminal } from "@agentq/core/runs/run-status";
import type { PrismaClient } from "@agentq/core/store/create-prisma-client";
import type { RunSubscriptionHub } from "./run-subscription-hub.ts";

const TERMINAL_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);

export interface FollowRunOptions {
  prisma: PrismaClient;
  hub: RunSubscriptionHub;
  runId: string;
  /** Deliver events with seq > after. */
  after: number;
  onEvent: (event: RunEventRecord) => void;
  onDelta?: (text: string) => void;
  /** The run finished and its last event was delivered. */
  onEnd: () => void;
  /** Replays from Postgres this often when nothing arrives live (pub/sub may drop). Default 5000 ms. */
  pollMs?: number;
}

/**
 * Delivers a run's durable events exactly once and in order (invariant 6): it subscribes to the live
 * channel first, then replays from Postgres, then passes live events on; any gap (a dropped publish)
 * is filled from Postgres. Deltas are passed on as they come and never replayed.
 */
export async function followRun(options: FollowRunOptions): Promise<{ stop(): void }> {
  let lastSeq = options.after;
  let stopped = false;
  let ended = false;
  let catchingUp: Promise<void> = Promise.resolve();
  let poll: NodeJS.Timeout | undefined;

  const deliver = (events: readonly RunEventRecord[]) => {
    for (const event of events) {
      if (stopped || event.seq <= lastSeq) continue;
      if (event.seq !== lastSeq + 1) return false;
      lastSeq = event.seq;
      options.onEvent(event);
      if (TERMINAL_EVENTS.has(event.type)) {
        end();
        return true;
      }
    }
    return true;
  };
  const end = () => {
    if (ended) return;
    ended = true;
    stop();
    options.onEnd();
  };
  const fetchMissing = async () => {
    while (!stopped) {
      const events = await listRunEvents(options.prisma, options.runId, lastSeq, 500);
      deliver(events);
      if (events.length < 500) break;
    }
  };
  /** Every delivery goes through this one chain, so replayed and live events never interleave. */
  const enqueue = (work: () => Promise<void> | void) => {
    catchingUp = catchingUp.then(work).catch(() => undefined);
    return catchingUp;
  };
  /**
   * A client that has already seen a finished run's last event (an SSE reconnect with its final
   * Last-Event-ID) gets no terminal event to end on: without this check its stream would stay open,
   * and its subscription held, forever.
   */
  const endIfAlreadyFinished = async () => {
    if (stopped || ended) return;
    const run = await options.prisma.run.findUnique({ where: { id: options.runId }, select: { status: true, lastEventSeq: true } });
    if (!run || (isTerminal(run.status) && run.lastEventSeq <= lastSeq)) end();
  };
  const catchUp = () =>
    enqueue(async () => {
      await fetchMissing();
      await endIfAlreadyFinished();
    });
  const schedulePoll = () => {
    if (poll) clearTimeout(poll);
    if (!stopped) poll = setTimeout(() => void catchUp().then(schedulePoll), options.pollMs ?? 5000);
  };

  // Declared before subscribing: a live event may end the follow before `subscribe` resolves.
  let unsubscribe: (() => void) | undefined;
  const stop = () => {
    if (poll) clearTimeout(poll);
    // Idempotent: an end() and the caller's own stop() must not unsubscribe twice.
    if (stopped) return;
    stopped = true;
    unsubscribe?.();
  };
  unsubscribe = await options.hub.subscribe(options.runId, (message) => {
    if (stopped) return;
    if (message.kind === "delta") {
      options.onDelta?.(message.text);
      return;
    }
    // Live events are applied after any replay in progress, so order holds.
    void enqueue(async () => {
      if (!deliver(message.events)) await fetchMissing();
    });
    schedulePoll();
  });
  if (stopped) unsubscribe();
  await catchUp();
  schedulePoll();
  return { stop };
}
