import { isTerminalEvent } from "./derive-run-status.ts";
import type { RunEvent } from "./types.ts";

export type ConnectionState = "connecting" | "live" | "reconnecting" | "closed";

export interface RunEventsSnapshot {
  /** Every durable event seen, in seq order, each once. */
  events: readonly RunEvent[];
  /** Model text of the round in progress, from `delta` messages (not durable: lost on reload). */
  streamingText: string;
  connection: ConnectionState;
  /** Set when the server refused the subscription (a run that is not the caller's). */
  error: string | null;
}

/** Messages are applied in batches: one render per burst of deltas or of replayed events. */
const BATCH_MS = 30;

/**
 * What the console knows of one run from the WebSocket (API.md "WebSocket"): its durable events,
 * each kept once (an event whose seq was already seen is dropped, whatever the server or a
 * reconnection repeats), and the streaming text of the round in progress. RunSocket feeds it and
 * asks it where to resume: `after` = the last seq seen.
 */
export class RunEventStream {
  readonly runId: string;
  private readonly onEvents: ((events: RunEvent[]) => void) | undefined;
  private events: RunEvent[] = [];
  private lastSeq = 0;
  private streamingText = "";
  private connection: ConnectionState = "connecting";
  private error: string | null = null;
  private added: RunEvent[] = [];
  private ended = false;
  private disposed = false;
  private batchTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshot: RunEventsSnapshot;
  private readonly listeners = new Set<() => void>();

  constructor(runId: string, onEvents?: (events: RunEvent[]) => void) {
    this.runId = runId;
    this.onEvents = onEvents;
    this.snapshot = this.buildSnapshot();
  }

  /** The run ended (its terminal event arrived) or cannot be followed: nothing more will come. */
  get finished(): boolean {
    return this.ended;
  }

  /** The message that (re)subscribes from where this stream is. */
  subscribeMessage(): { type: "subscribe"; run_id: string; after: number } {
    return { type: "subscribe", run_id: this.runId, after: this.lastSeq };
  }

  getSnapshot = (): RunEventsSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  setConnection(connection: ConnectionState): void {
    if (this.ended || this.connection === connection) return;
    this.connection = connection;
    // Deltas of an interrupted round are not replayed; its text arrives with message.completed.
    if (connection === "reconnecting") this.streamingText = "";
    if (connection === "live") this.error = null;
    this.scheduleBatch();
  }

  /** Applies one server message about this run. */
  receive(message: { type?: unknown; event?: unknown; text?: unknown; code?: unknown }): void {
    switch (message.type) {
      case "event": {
        const event = message.event as RunEvent | undefined;
        if (!event || typeof event.seq !== "number" || event.seq <= this.lastSeq) return;
        this.lastSeq = event.seq;
        this.events.push(event);
        this.added.push(event);
        // The round's text is complete in the event (and the transcript); a new round starts afresh.
        if (event.type === "round.started" || event.type === "message.completed") this.streamingText = "";
        if (isTerminalEvent(event)) this.end();
        break;
      }
      case "delta":
        if (typeof message.text === "string" && !this.ended) this.streamingText += message.text;
        break;
      case "error":
        if (message.code === "not_found") {
          this.error = "This run was not found.";
          this.end();
        } else {
          this.error = "Live updates are unavailable right now; retrying.";
        }
        break;
      default:
        return;
    }
    this.scheduleBatch();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.batchTimer);
    this.listeners.clear();
  }

  private end(): void {
    this.ended = true;
    this.streamingText = "";
    this.connection = "closed";
  }

  private scheduleBatch(): void {
    if (this.batchTimer !== undefined || this.disposed) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      this.flush();
    }, BATCH_MS);
  }

  private flush(): void {
    if (this.disposed) return;
    this.snapshot = this.buildSnapshot();
    const added = this.added;
    this.added = [];
    if (added.length > 0) this.onEvents?.(added);
    for (const listener of this.listeners) listener();
  }

  private buildSnapshot(): RunEventsSnapshot {
    return { events: [...this.events], streamingText: this.streamingText, connection: this.connection, error: this.error };
  }
}
