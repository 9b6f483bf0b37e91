import type { Schemas } from "./create-agentq-client.ts";

export type RunEvent = Schemas["Event"];

/** The run's last event: it will not change any more. */
export const TERMINAL_EVENT_TYPES = ["run.completed", "run.failed", "run.cancelled"] as const;

/** What followRun needs of a WebSocket: the standard browser/Node 22 interface, or the `ws` package's. */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface FollowRunOptions {
  baseUrl: string;
  token: string;
  runId: string;
  /** Replay from after this seq (0: from the start). */
  after?: number;
  /** Every durable event, in seq order, each once (also across reconnects). */
  onEvent?: (event: RunEvent) => void | Promise<void>;
  /** Live model text as it streams, in order with the events (not replayed: text streamed while disconnected is in `message.completed`). */
  onDelta?: (text: string) => void;
  /** Called before each reconnect, with the attempt number (1, 2, ...). */
  onReconnect?: (attempt: number, lastSeq: number) => void;
  signal?: AbortSignal;
  /** Opens the socket. Default: the global WebSocket (browsers, Node 22+) or the `ws` package. */
  openSocket?: (url: string) => WebSocketLike | Promise<WebSocketLike>;
  /** Reconnects give up after this many failures in a row. Default 10 (about a minute of backoff). */
  maxReconnects?: number;
}

/** The connection was refused for good: a bad or revoked token, or a run the caller may not see. */
export class FollowRunError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "FollowRunError";
    this.code = code;
  }
}

const TOKEN_REVOKED_CLOSE_CODE = 4401;

/**
 * Follows a run over GET /api/ws until its terminal event, which it resolves with. Events come
 * replayed from `after` and then live, with no gaps and no repeats; a dropped connection is reopened
 * (backoff 0.25 s doubling to 8 s) and resubscribed from the last seq seen, so nothing is missed.
 */
export async function followRun(options: FollowRunOptions): Promise<RunEvent> {
  const openSocket = options.openSocket ?? defaultOpenSocket;
  const url = `${options.baseUrl.replace(/\/+$/, "").replace(/^http/, "ws")}/api/ws?token=${encodeURIComponent(options.token)}`;
  const maxReconnects = options.maxReconnects ?? 10;
  let lastSeq = options.after ?? 0;
  let failures = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const outcome = await followOnce(await openSocket(url), options, lastSeq, (seq) => {
      lastSeq = seq;
      failures = 0;
    });
    if (outcome.kind === "finished") return outcome.event;
    if (outcome.kind === "handler_failed") throw outcome.error;
    if (outcome.kind === "refused") throw new FollowRunError(outcome.code, outcome.message);
    failures += 1;
    if (failures > maxReconnects) throw new FollowRunError("unavailable", `the connection to ${options.baseUrl} kept failing (${outcome.reason})`);
    options.onReconnect?.(failures, lastSeq);
    await delay(Math.min(8000, 250 * 2 ** (failures - 1)), options.signal);
  }
}

type FollowOutcome =
  | { kind: "finished"; event: RunEvent }
  | { kind: "refused"; code: string; message: string }
  | { kind: "dropped"; reason: string }
  | { kind: "handler_failed"; error: unknown };

function followOnce(socket: WebSocketLike, options: FollowRunOptions, after: number, delivered: (seq: number) => void): Promise<FollowOutcome> {
  return new Promise((resolve) => {
    let lastSeq = after;
    let settled = false;
    // Events are handed to onEvent one at a time, in order, even when it is async (a prompt); deltas
    // wait in the same line.
    let queue: Promise<void> = Promise.resolve();
    const settle = (outcome: FollowOutcome) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener("abort", onAbort);
      socket.onclose = null;
      socket.onmessage = null;
      socket.close();
      resolve(outcome);
    };
    const onAbort = () => settle({ kind: "dropped", reason: "aborted" });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    socket.onopen = () => socket.send(JSON.stringify({ type: "subscribe", run_id: options.runId, after }));
    socket.onmessage = (message) => {
      const parsed = parseMessage(message.data);
      if (!parsed || parsed.run_id !== options.runId) return;
      if (parsed.type === "delta" && typeof parsed.text === "string") {
        // Behind the events received before it: a delta of the next round must not be shown while an
        // async onEvent (an approval prompt) still holds back the events that came first.
        const text = parsed.text;
        queue = queue.then(() => {
          if (!settled) options.onDelta?.(text);
        });
      } else if (parsed.type === "error") {
        const code = typeof parsed.code === "string" ? parsed.code : "error";
        settle({ kind: "refused", code, message: code === "not_found" ? `run ${options.runId} was not found` : `the API refused to follow the run (${code})` });
      } else if (parsed.type === "event") {
        const event = parsed.event as RunEvent;
        if (event.seq <= lastSeq) return;
        lastSeq = event.seq;
        queue = queue.then(async () => {
          if (settled) return;
          try {
            await options.onEvent?.(event);
          } catch (error) {
            // The caller's handler failed: stop following and hand its error back.
            settle({ kind: "handler_failed", error });
            return;
          }
          delivered(event.seq);
          if ((TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type)) settle({ kind: "finished", event });
        });
      }
    };
    socket.onclose = (event) =>
      void queue.then(() =>
        event.code === TOKEN_REVOKED_CLOSE_CODE
          ? settle({ kind: "refused", code: "unauthorized", message: "the token stopped working (revoked, or its user disabled)" })
          : settle({ kind: "dropped", reason: `closed with ${event.code}` }),
      );
    socket.onerror = () => undefined; // onclose follows and decides.
  });
}

function parseMessage(data: unknown): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(typeof data === "string" ? data : String(data));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function defaultOpenSocket(url: string): Promise<WebSocketLike> {
  if (typeof globalThis.WebSocket === "function") return new globalThis.WebSocket(url) as unknown as WebSocketLike;
  const { default: WebSocket } = await import("ws");
  const socket = new WebSocket(url);
  // An upgrade refused (401) closes the socket with 1006 after an error: say it as a refused token.
  socket.on("unexpected-response", (_request, response) => {
    socket.terminate();
    if (response.statusCode === 401) socket.emit("close", TOKEN_REVOKED_CLOSE_CODE, Buffer.from("unauthorized"));
  });
  return socket as unknown as WebSocketLike;
}

function delay(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
