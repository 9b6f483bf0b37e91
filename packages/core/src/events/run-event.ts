import type { RunEventData } from "./run-event-schemas.ts";

/** Durable event types (API.md, "Events"). Token deltas are live-only and never stored. */
export const RUN_EVENT_TYPES = [
  "run.queued",
  "run.started",
  "round.started",
  "message.completed",
  "tool.started",
  "tool.completed",
  "approval.required",
  "approval.decided",
  "run.resumed",
  "guard.triggered",
  "run.completed",
  "run.failed",
  "run.cancelled",
] as const;

export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export const GUARD_NAMES = ["repeated_call", "call_budget", "round_budget", "promised_action", "token_budget", "stream_timeout"] as const;
export type GuardName = (typeof GUARD_NAMES)[number];

/**
 * An event about to be appended: its seq is assigned in the commit that makes the change. Its data
 * is typed by its type's schema (run-event-schemas.ts).
 */
export type NewRunEvent = { [K in RunEventType]: { type: K; data: RunEventData<K> } }[RunEventType];

/** An event as stored and served (API.md `Event`). */
export interface RunEventRecord {
  seq: number;
  type: RunEventType;
  at: string;
  data: Record<string, unknown>;
}

/**
 * What is published on the Redis channel of a run's owner: committed events, or live text. One
 * channel carries every run of its user, so each message names its run.
 */
export type RunChannelMessage = { kind: "events"; run_id: string; events: RunEventRecord[] } | { kind: "delta"; run_id: string; text: string };

/** A run and the user who owns it: its live messages go to that user's channel (never another's). */
export interface OwnedRun {
  id: string;
  userId: string;
}

/**
 * Publishes to live subscribers (Redis pub/sub). Called after commit; may drop messages:
 * subscribers replay from Postgres by seq, so a drop costs latency, never correctness.
 */
export interface RunEventPublisher {
  publishEvents(run: OwnedRun, events: RunEventRecord[]): Promise<void>;
  publishDelta(run: OwnedRun, text: string): Promise<void>;
}
