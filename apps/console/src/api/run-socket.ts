import { RunEventStream } from "./run-event-stream.ts";
import type { RunEvent } from "./types.ts";

export interface RunSocketOptions {
  /** The socket URL, token included; asked again at every (re)connection; null = signed out. */
  url: () => string | null;
  /** Factory, so tests can drive the socket without a browser. */
  createSocket?: (url: string) => WebSocket;
}

/** First reconnection after 0.5 s, doubling to at most 10 s, with jitter so tabs do not reconnect in step. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

interface Followed {
  stream: RunEventStream;
  followers: number;
}

/**
 * One WebSocket for the console, shared by every run it follows. Kept open while a chat is on
 * screen (`hold`), so following a run that was just started is one message, not a new connection:
 * model text streamed before the subscription arrives is not replayed by the server. After a drop it
 * reconnects with backoff and resubscribes each unfinished run with `after` = its last seq.
 */
export class RunSocket {
  private readonly options: RunSocketOptions;
  private readonly followed = new Map<string, Followed>();
  private holders = 0;
  private socket: WebSocket | undefined;
  private open = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RunSocketOptions) {
    this.options = options;
  }

  /** Keeps the connection open until the returned function is called. */
  hold(): () => void {
    this.holders += 1;
    this.ensureConnected();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      this.closeIfUnused();
    };
  }

  /** Follows a run (shared with other followers of it) until the returned release is called. */
  follow(runId: string, onEvents?: (events: RunEvent[]) => void): { stream: RunEventStream; release: () => void } {
    let entry = this.followed.get(runId);
    if (!entry) {
      entry = { stream: new RunEventStream(runId, onEvents), followers: 0 };
      this.followed.set(runId, entry);
      if (this.open) {
        entry.stream.setConnection("live");
        this.send(entry.stream.subscribeMessage());
      }
    }
    entry.followers += 1;
    this.ensureConnected();
    const followedEntry = entry;
    let released = false;
    return {
      stream: entry.stream,
      release: () => {
        if (released) return;
        released = true;
        followedEntry.followers -= 1;
        if (followedEntry.followers > 0) return;
        this.followed.delete(runId);
        if (!followedEntry.stream.finished) this.send({ type: "unsubscribe", run_id: runId });
        followedEntry.stream.dispose();
        this.closeIfUnused();
      },
    };
  }

  /** Signed out: drop the connection and every run. */
  close(): void {
    for (const { stream } of this.followed.values()) stream.dispose();
    this.followed.clear();
    this.holders = 0;
    this.disconnect();
  }

  private wanted(): boolean {
    if (this.holders > 0) return true;
    for (const { stream } of this.followed.values()) if (!stream.finished) return true;
    return false;
  }

  private ensureConnected(): void {
    if (this.socket || this.retryTimer !== undefined || !this.wanted()) return;
    const url = this.options.url();
    if (url === null) return;
    const socket = this.options.createSocket ? this.options.createSocket(url) : new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      this.open = true;
      this.attempt = 0;
      for (const { stream } of this.followed.values()) {
        if (stream.finished) continue;
        stream.setConnection("live");
        this.send(stream.subscribeMessage());
      }
    };
    socket.onmessage = (message: MessageEvent) => {
      if (socket !== this.socket || typeof message.data !== "string") return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.data);
      } catch {
        return;
      }
      if (typeof parsed !== "object" || parsed === null) return;
      const runId = (parsed as { run_id?: unknown }).run_id;
      if (typeof runId !== "string") return;
      const stream = this.followed.get(runId)?.stream;
      if (!stream) return;
      stream.receive(parsed as Record<string, unknown>);
      if (stream.finished) this.closeIfUnused();
    };
    socket.onclose = () => {
      if (socket !== this.socket) return;
      this.socket = undefined;
      this.open = false;
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (!this.wanted() || this.retryTimer !== undefined) return;
    for (const { stream } of this.followed.values()) stream.setConnection("reconnecting");
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.ensureConnected();
    }, delay);
  }

  private send(message: unknown): void {
    if (this.socket && this.open) this.socket.send(JSON.stringify(message));
  }

  private closeIfUnused(): void {
    if (!this.wanted()) this.disconnect();
  }

  private disconnect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    this.open = false;
    this.attempt = 0;
    if (!socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    // 0 CONNECTING, 1 OPEN (numbers: WebSocket is not a global in every runtime the tests use).
    if (socket.readyState <= 1) socket.close(1000);
  }
}
