import { isTerminal, type PrismaClient, readRunEvents, type RunEventRecord, type RunEventsPage } from "@agentq/core";
import type { RunSubscriptionHub } from "./run-subscription-hub.ts";

const TERMINAL_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);

/** Events read from Postgres per statement while catching up. */
const REPLAY_PAGE_SIZE = 500;

export interface FollowRunOptions {
  prisma: PrismaClient;
  hub: RunSubscriptionHub;
  runId: string;
  /**
   * The run's owner, whose channel carries its live messages: the user who asks, as only a run's
   * owner may follow it. Were it someone else's run, nothing of it would arrive live (it is
   * published on its owner's channel) before the first read refuses.
   */
  userId: string;
  /** Deliver events with seq > after. */
  after: number;
  onEvent: (event: RunEventRecord) => void;
  onDelta?: (text: string) => void;
  /** The run finished and its last event was delivered. */
  onEnd: () => void;
  /** Replays from Postgres this often when nothing arrives live (pub/sub may drop). Default 5000 ms. */
  pollMs?: number;
  /**
   * Reads the first page instead of readRunEvents, and may refuse by throwing (it checks who asks in
   * the same statement: readRunEventsWithToken): followRun then delivers nothing, stops, and rejects
   * with that error. Default: readRunEvents (the caller has checked access).
   */
  firstRead?: (after: number, limit: number) => Promise<RunEventsPage>;
}

/**
 * Delivers a run's durable events exactly once and in order (invariant 6): it subscribes to the live
 * channel first, then replays from Postgres, then passes live events on; any gap (a dropped publish)
 * is filled from Postgres. Deltas are passed on in arrival order after whatever replay is in progress, and never replayed.
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
  const readStored = (after: number, limit: number) => readRunEvents(options.prisma, options.runId, after, limit);
  let read = options.firstRead ?? readStored;
  /** Delivers what Postgres has after the last delivered seq; returns the last page read (none if stopped). */
  const fetchMissing = async () => {
    let page: RunEventsPage | undefined;
    while (!stopped) {
      page = await read(lastSeq, REPLAY_PAGE_SIZE);
      read = readStored;
      deliver(page.events);
      if (page.events.length < REPLAY_PAGE_SIZE) break;
    }
    return page;
  };
  /** Every delivery goes through this one chain, so replayed and live events never interleave. */
  const enqueue = (work: () => Promise<void> | void) => {
    catchingUp = catchingUp.then(work).catch(() => undefined);
    return catchingUp;
  };
  /**
   * A client that has already seen a finished run's last event (an SSE reconnect with its final
   * Last-Event-ID) gets no terminal event to end on: without this check its stream would stay open,
   * and its subscription held, forever. The page carries the run's status read with its events.
   */
  const endIfAlreadyFinished = (page: RunEventsPage) => {
    if (stopped || ended) return;
    if (!page.run || (isTerminal(page.run.status) && page.run.lastEventSeq <= lastSeq)) end();
  };
  const replay = async () => {
    const page = await fetchMissing();
    if (page) endIfAlreadyFinished(page);
  };
  const catchUp = () => enqueue(replay);
  const schedulePoll = () => {
    if (stopped) return;
    // Every live message pushes the poll back: one timer re-armed, not a new one per message.
    if (poll) poll.refresh();
    else poll = setTimeout(() => void catchUp().then(schedulePoll), options.pollMs ?? 5000);
  };

  // The first replay is first in the delivery chain, before any live message: it waits for the
  // subscription (so nothing published meanwhile is missed), and a refusal (firstRead) stops the
  // follow before anything was delivered.
  let subscribed: () => void = () => undefined;
  const subscription = new Promise<void>((resolve) => (subscribed = resolve));
  let refusal: { error: unknown } | undefined;
  const firstCatchUp = enqueue(async () => {
    await subscription;
    try {
      await replay();
    } catch (error) {
      // Without firstRead a failed read is retried by the poll, as every later one is.
      if (!options.firstRead) return;
      refusal = { error };
      stop();
    }
  });

  // Declared before subscribing: a live event may end the follow before `subscribe` resolves.
  let unsubscribe: (() => void) | undefined;
  const stop = () => {
    if (poll) clearTimeout(poll);
    // Idempotent: an end() and the caller's own stop() must not unsubscribe twice.
    if (stopped) return;
    stopped = true;
    unsubscribe?.();
  };
  unsubscribe = await options.hub.subscribe({ id: options.runId, userId: options.userId }, (message) => {
    if (stopped) return;
    if (message.kind === "delta") {
      // Through the same chain as events: a delta never overtakes the replay of the round it belongs
      // to (a client clears its streaming text at round.started, which would wipe a delta shown earlier).
      void enqueue(() => options.onDelta?.(message.text));
      return;
    }
    // Live events are applied after any replay in progress, so order holds.
    void enqueue(async () => {
      if (!deliver(message.events)) await fetchMissing();
    });
    schedulePoll();
  });
  if (stopped) unsubscribe();
  subscribed();
  await firstCatchUp;
  if (refusal) throw refusal.error;
  schedulePoll();
  return { stop };
}
