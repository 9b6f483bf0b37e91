import { type QueryClient, type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { queryKeys } from "./query-keys.ts";
import type { RunEventStream, RunEventsSnapshot } from "./run-event-stream.ts";
import { RunSocket } from "./run-socket.ts";
import { onTokenChange, readToken } from "./token-store.ts";
import type { RunEvent } from "./types.ts";

const IDLE: RunEventsSnapshot = { events: [], streamingText: "", connection: "closed", error: null };

/** Built in code, never shown: the token rides in the query string because browsers cannot set headers on a WebSocket. */
function webSocketUrl(): string | null {
  const token = readToken();
  if (!token) return null;
  const protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${protocol}//${window.location.host}/api/ws?token=${encodeURIComponent(token)}`;
}

let sharedSocket: RunSocket | undefined;

/** The console's one WebSocket, closed when the person signs out. */
function runSocket(): RunSocket {
  if (!sharedSocket) {
    const socket = new RunSocket({ url: webSocketUrl });
    sharedSocket = socket;
    onTokenChange((token) => {
      if (token === null) socket.close();
    });
  }
  return sharedSocket;
}

/** Which cached queries a batch of events makes stale. */
function staleQueries(runId: string, events: RunEvent[]): QueryKey[] {
  const types = new Set(events.map((event) => event.type));
  const has = (...names: string[]) => names.some((name) => types.has(name));
  const keys: QueryKey[] = [];
  if (has("run.queued", "message.completed", "tool.completed", "run.completed", "run.failed", "run.cancelled")) keys.push(["chats", "detail"]);
  if (has("run.started", "run.resumed", "approval.required", "approval.decided", "run.completed", "run.failed", "run.cancelled")) {
    keys.push(queryKeys.runs.detail(runId), queryKeys.chats.allRuns, queryKeys.approvals.all, queryKeys.chats.allApprovals);
  }
  if (has("approval.decided")) keys.push(queryKeys.chats.allGrants);
  // The chat list shows each chat's last run status.
  if (has("run.started", "run.resumed", "approval.required", "approval.decided", "run.completed", "run.failed", "run.cancelled"))
    keys.push(queryKeys.chats.list());
  return keys;
}

function invalidate(queryClient: QueryClient, keys: QueryKey[]): void {
  for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
}

/** Keeps the console's WebSocket open while the calling component is mounted (a chat on screen). */
export function useRunSocketConnection(): void {
  useEffect(() => runSocket().hold(), []);
}

/**
 * The live view of one run: its durable events (each once, replayed after a reconnect or a reload
 * from the last seq seen), the streaming model text, and the connection's state. As events arrive,
 * the queries they make stale (the transcript, the run, the approvals) are refreshed.
 */
export function useRunEvents(runId: string | undefined): RunEventsSnapshot {
  const queryClient = useQueryClient();
  const [stream, setStream] = useState<RunEventStream | undefined>(undefined);

  useEffect(() => {
    if (runId === undefined) {
      setStream(undefined);
      return;
    }
    const followed = runSocket().follow(runId, (events) => invalidate(queryClient, staleQueries(runId, events)));
    setStream(followed.stream);
    return followed.release;
  }, [runId, queryClient]);

  // Until the effect has swapped streams, the previous run's stream must not show under this run.
  const current = stream !== undefined && stream.runId === runId ? stream : undefined;
  return useSyncExternalStore(current?.subscribe ?? subscribeNothing, current?.getSnapshot ?? idleSnapshot);
}

function subscribeNothing(): () => void {
  return () => {};
}

function idleSnapshot(): RunEventsSnapshot {
  return IDLE;
}
