import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { exceedsJsonNesting, MAX_JSON_NESTING, NotFoundError, readRunEventsWithToken, UnauthorizedError } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { unreachableDependencies } from "../check-readiness.ts";
import { authenticateToken, requestToken } from "../http/authenticate.ts";
import { dependencyOutage } from "../http/dependency-outage.ts";
import { followRun } from "./follow-run.ts";

/** A run id: no NUL character, which Postgres would refuse (an outage answer instead of not_found). */
const runIdField = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => !id.includes("\u0000"), "must not contain NUL characters (U+0000)");

const clientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("subscribe"), run_id: runIdField, after: z.number().int().min(0).optional() }),
  z.object({ type: z.literal("unsubscribe"), run_id: runIdField }),
]);

/** Where the WebSocket is upgraded (the HTTP server's upgrade event, not an express route). */
export const RUN_WEBSOCKET_PATH = "/api/ws";

/** Pings detect half-open connections (a laptop that slept). Default every 30 s. */
const PING_INTERVAL_MS = 30_000;
/** A client with this much unsent data gets no more deltas (they are live-only anyway). Default 1 MiB. */
const DELTA_BACKPRESSURE_BYTES = 1024 * 1024;
/**
 * The close code of a socket whose token stopped working after the upgrade (its user was disabled,
 * or the token replaced): 4000-4999 are the application's, and 4401 reads as HTTP's 401.
 */
export const TOKEN_REVOKED_CLOSE_CODE = 4401;

/**
 * GET /api/ws (API.md, "WebSocket"): subscribe to runs, get their durable events replayed then live
 * (no gaps, no repeats) and live text deltas. The token comes as a bearer header or `?token=`; a bad
 * one refuses the upgrade with 401. An open socket's token is checked again on every subscribe and
 * every ping (30 s): once it no longer works, the socket is closed with TOKEN_REVOKED_CLOSE_CODE.
 * Checking here rather than being told keeps it right across API instances without a broadcast.
 */
export function attachRunWebSocket(server: Server, dependencies: ApiDependencies): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const alive = new WeakMap<WebSocket, boolean>();
  const tokens = new WeakMap<WebSocket, string | undefined>();

  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== RUN_WEBSOCKET_PATH) {
      refuse(socket, 404, "Not Found");
      return;
    }
    const token = requestToken(request, true);
    authenticateToken(dependencies.prisma, token).then(
      (user) =>
        wss.handleUpgrade(request, socket, head, (ws) => {
          tokens.set(ws, token);
          serveConnection(ws, { token, userId: user.id, socket }, dependencies, alive);
        }),
      async (error: unknown) => {
        if (error instanceof UnauthorizedError) {
          refuse(socket, 401, "Unauthorized");
          return;
        }
        // Postgres is down (or failing): the token could not be checked, which is not a bad token.
        const outage = await dependencyOutage(error, () => unreachableDependencies(dependencies));
        refuse(socket, 503, "Service Unavailable", outage?.message ?? "the token could not be checked right now; try again shortly");
      },
    );
  });

  const ping = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
      authenticateToken(dependencies.prisma, tokens.get(ws)).catch((error: unknown) => {
        // An outage is not a revoked token: the socket stays open.
        if (error instanceof UnauthorizedError) closeRevoked(ws);
      });
    }
  }, PING_INTERVAL_MS);

  return {
    close() {
      clearInterval(ping);
      for (const ws of wss.clients) ws.close(1001, "server shutting down");
      wss.close();
    },
  };
}

const REFUSAL_CODES: Record<number, string> = { 401: "unauthorized", 404: "not_found", 503: "unavailable" };

function refuse(socket: Duplex, status: number, reason: string, message = reason.toLowerCase()): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: { code: REFUSAL_CODES[status] ?? "internal_error", message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function closeRevoked(ws: WebSocket): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(JSON.stringify({ type: "error", code: "unauthorized", message: "the token no longer works (its user was disabled, or it was replaced)" }));
  ws.close(TOKEN_REVOKED_CLOSE_CODE, "token revoked");
}

function serveConnection(
  ws: WebSocket,
  { token, userId, socket }: { token: string | undefined; userId: string; socket: Duplex },
  dependencies: ApiDependencies,
  alive: WeakMap<WebSocket, boolean>,
): void {
  const followers = new Map<string, { stop(): void }>();
  /**
   * The subscription of each run that is current. Subscribing takes a few awaits, so a newer
   * subscribe or an unsubscribe of the same run can arrive meanwhile; a superseded subscription
   * sends nothing more and is stopped, or one run would be followed twice (events repeated).
   */
  const current = new Map<string, symbol>();
  alive.set(ws, true);
  ws.on("pong", () => alive.set(ws, true));
  // Frames sent in the same tick (the events of a commit, of runs published together) leave the
  // socket in one write rather than a system call each: corked until the tick's work is done.
  let corked = false;
  const send = (message: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    ws.send(JSON.stringify(message));
  };

  ws.on("message", (raw) => {
    let parsed: ReturnType<typeof clientMessage.safeParse>;
    const text = raw.toString();
    if (exceedsJsonNesting(text)) {
      send({ type: "error", code: "invalid_request", message: `messages must not nest arrays and objects more than ${MAX_JSON_NESTING} levels deep` });
      return;
    }
    try {
      parsed = clientMessage.safeParse(JSON.parse(text));
    } catch {
      send({ type: "error", code: "invalid_request", message: "messages must be JSON" });
      return;
    }
    if (!parsed.success) {
      send({
        type: "error",
        code: "invalid_request",
        message: "expected {type: subscribe|unsubscribe, run_id, after?}",
        details: { issues: parsed.error.issues },
      });
      return;
    }
    const message = parsed.data;
    followers.get(message.run_id)?.stop();
    followers.delete(message.run_id);
    current.delete(message.run_id);
    if (message.type === "unsubscribe") return;
    const subscription = Symbol(message.run_id);
    current.set(message.run_id, subscription);
    void subscribe(message.run_id, message.after ?? 0, subscription);
  });

  const subscribe = async (runId: string, after: number, subscription: symbol) => {
    const isCurrent = () => current.get(runId) === subscription && ws.readyState === ws.OPEN;
    if (token === undefined) {
      closeRevoked(ws);
      return;
    }
    let ended = false;
    let follower: { stop(): void };
    try {
      follower = await followRun({
        prisma: dependencies.prisma,
        hub: dependencies.runs.hub,
        runId,
        // The socket's user: a run it may follow is its own, so live messages come on its channel.
        userId,
        after,
        // The socket's token is checked again (a revoked token closes the socket), with the run's
        // owner, in the statement that reads the replay: nothing is delivered unless both hold.
        firstRead: (from, limit) => readRunEventsWithToken(dependencies.prisma, { token, runId, after: from, limit }),
        onEvent: (event) => {
          if (isCurrent()) send({ type: "event", run_id: runId, event });
        },
        onDelta: (text) => {
          if (isCurrent() && ws.bufferedAmount < DELTA_BACKPRESSURE_BYTES) send({ type: "delta", run_id: runId, text });
        },
        onEnd: () => {
          ended = true;
          if (current.get(runId) !== subscription) return;
          followers.delete(runId);
          current.delete(runId);
        },
      });
    } catch (error) {
      const stillCurrent = isCurrent();
      if (current.get(runId) === subscription) current.delete(runId);
      if (error instanceof UnauthorizedError) {
        closeRevoked(ws);
        return;
      }
      // Someone else's run is answered like a missing one (invariant 7).
      if (error instanceof NotFoundError) {
        if (stillCurrent) send({ type: "error", code: "not_found", run_id: runId });
        return;
      }
      // Redis or Postgres is unreachable: say so rather than leave the client waiting in silence.
      send({ type: "error", code: "unavailable", run_id: runId, message: "the run's events cannot be followed right now; subscribe again" });
      return;
    }
    if (ended || !isCurrent()) follower.stop();
    else followers.set(runId, follower);
  };

  ws.on("close", () => {
    for (const follower of followers.values()) follower.stop();
    followers.clear();
    current.clear();
  });
}
