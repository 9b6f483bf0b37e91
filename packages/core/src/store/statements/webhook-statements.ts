import { z } from "zod";
import { preparedSql, queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

// Webhooks (webhooks/*.ts): registrations, and the deliveries the dispatcher makes. Deliveries are
// created by the statements that append run events (webhookDeliveryInsert below), so an event and
// its deliveries commit together. Every statement a user reaches is scoped to that user.

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * The CTE body that creates one delivery per event and matching endpoint of the run's user: `source`
 * names a relation with the columns `run_id`, `user_id`, `first_seq` (the seq of its first event),
 * `events` (a jsonb array of `{type}`) and `now`. A delivery's id is its `webhook-id`, random and
 * stored, so it stays the same for every attempt.
 */
export function webhookDeliveryInsert(source: string): string {
  return `INSERT INTO webhook_deliveries (id, webhook_id, run_id, event_seq, event_type, next_attempt_at, created_at, updated_at)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, s.run_id, s.first_seq + e.ord::int - 1, e.value->>'type', s.now, s.now, s.now
  FROM ${source} AS s
  JOIN webhooks AS w ON w.user_id = s.user_id
  CROSS JOIN LATERAL jsonb_array_elements(s.events) WITH ORDINALITY AS e(value, ord)
  WHERE e.value->>'type' = ANY (w.events)`;
}

export const webhookRow = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  createdAt: z.date(),
});
export type WebhookRecord = z.output<typeof webhookRow>;

const WEBHOOK_COLUMNS = `id, url, events, description, created_at AS "createdAt"`;

export async function insertWebhook(
  runner: SqlRunner,
  input: { id: string; userId: string; url: string; events: readonly string[]; description: string | null; sealedSecret: string; now: Date },
): Promise<WebhookRecord> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO webhooks (id, user_id, url, events, description, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${WEBHOOK_COLUMNS}`,
    [input.id, input.userId, input.url, input.events, input.description, input.sealedSecret, input.now],
    webhookRow,
  );
  return row!;
}

export async function selectOwnWebhooks(runner: SqlRunner, userId: string): Promise<WebhookRecord[]> {
  return queryParsed(runner, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE user_id = $1 ORDER BY created_at, id`, [userId], webhookRow);
}

export async function selectOwnWebhook(runner: SqlRunner, input: { userId: string; webhookId: string }): Promise<WebhookRecord | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND user_id = $2`,
    [input.webhookId, input.userId],
    webhookRow,
  );
  return row;
}

/** Deletes the endpoint and its deliveries (a delivery in flight finds nothing to record). Returns whether it was the user's. */
export async function deleteOwnWebhook(runner: SqlRunner, input: { userId: string; webhookId: string }): Promise<boolean> {
  return (await queryRowCount(runner, "DELETE FROM webhooks WHERE id = $1 AND user_id = $2", [input.webhookId, input.userId])) > 0;
}

export const deliveryRow = z.object({
  id: z.string(),
  runId: z.string(),
  eventSeq: z.number(),
  eventType: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number(),
  lastStatusCode: z.number().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  attemptLog: z.array(
    z.object({ attempt: z.number(), status_code: z.number().nullable(), error: z.string().nullable(), duration_ms: z.number(), attempted_at: z.string() }),
  ),
});
export type WebhookDeliveryRecord = z.output<typeof deliveryRow>;

/** An endpoint's deliveries, newest first, each with every attempt (the caller checked the endpoint is the user's). */
export async function selectWebhookDeliveries(runner: SqlRunner, input: { webhookId: string; limit: number }): Promise<WebhookDeliveryRecord[]> {
  return queryParsed(
    runner,
    `SELECT d.id, d.run_id AS "runId", d.event_seq AS "eventSeq", d.event_type AS "eventType", d.status, d.attempts,
       d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", d.next_attempt_at AS "nextAttemptAt",
       d.created_at AS "createdAt", d.updated_at AS "updatedAt",
       COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'status_code', a.status_code, 'error', a.error,
           'duration_ms', a.duration_ms, 'attempted_at', to_char(a.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY a.attempt)
         FROM webhook_delivery_attempts AS a WHERE a.delivery_id = d.id), '[]') AS "attemptLog"
     FROM webhook_deliveries AS d WHERE d.webhook_id = $1
     ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
    [input.webhookId, input.limit],
    deliveryRow,
  );
}

/**
 * Marks up to `limit` due deliveries as enqueued and returns them: pending ones whose time has come and
 * that have no job yet, or whose job should have run `lostAfterMs` ago (lost with a flushed Redis), and
 * attempts whose claimer died (`delivering` past its claim). SKIP LOCKED: dispatchers on several
 * workers take disjoint sets.
 */
const CLAIM_DUE_SQL = preparedSql(
  "webhook_claim_due",
  `UPDATE webhook_deliveries AS d SET enqueued_at = $1
   WHERE d.id IN (
     SELECT id FROM webhook_deliveries
     WHERE status IN ('pending', 'delivering') AND next_attempt_at <= $1
       AND (status = 'pending' OR claimed_until < $1)
       AND (enqueued_at IS NULL OR (enqueued_at < $1 - make_interval(secs => $2::int / 1000.0) AND next_attempt_at < $1 - make_interval(secs => $2::int / 1000.0)))
     ORDER BY next_attempt_at LIMIT $3
     FOR UPDATE SKIP LOCKED)
   RETURNING d.id, d.attempts, d.next_attempt_at AS "nextAttemptAt"`,
);

export async function enqueueDueWebhookDeliveries(
  runner: SqlRunner,
  input: { now: Date; lostAfterMs: number; limit: number },
): Promise<{ id: string; attempts: number; nextAttemptAt: Date | null }[]> {
  return queryParsed(
    runner,
    CLAIM_DUE_SQL,
    [input.now, input.lostAfterMs, input.limit],
    z.object({ id: z.string(), attempts: z.number(), nextAttemptAt: z.date().nullable() }),
  );
}

const claimedDeliveryRow = z.object({
  id: z.string(),
  attempts: z.number(),
  webhookId: z.string(),
  url: z.string(),
  secret: z.string(),
  runId: z.string(),
  chatId: z.string(),
  eventSeq: z.number(),
  eventType: z.string(),
  eventData: z.unknown(),
  eventAt: z.date(),
});
export type ClaimedWebhookDelivery = z.output<typeof claimedDeliveryRow>;

/**
 * Takes attempt `attempt + 1` of a delivery: only while it is pending (or its last claimer died) and
 * still at `attempt` attempts, so a duplicate job of the same attempt takes nothing. Returns what the
 * request needs: the endpoint, its sealed secret and the event.
 */
const CLAIM_SQL = preparedSql(
  "webhook_claim",
  `WITH claimed AS (
     UPDATE webhook_deliveries SET status = 'delivering', attempts = attempts + 1, claimed_until = $3, updated_at = $2
     WHERE id = $1 AND attempts = $4 AND (status = 'pending' OR (status = 'delivering' AND claimed_until < $2))
     RETURNING id, attempts, webhook_id, run_id, event_seq, event_type
   )
   SELECT c.id, c.attempts, c.webhook_id AS "webhookId", w.url, w.secret, c.run_id AS "runId", r.chat_id AS "chatId",
     c.event_seq AS "eventSeq", c.event_type AS "eventType", e.data AS "eventData", e.created_at AS "eventAt"
   FROM claimed AS c
   JOIN webhooks AS w ON w.id = c.webhook_id
   JOIN runs AS r ON r.id = c.run_id
   JOIN run_events AS e ON e.run_id = c.run_id AND e.seq = c.event_seq`,
);

export async function claimWebhookDelivery(
  runner: SqlRunner,
  input: { deliveryId: string; attempt: number; now: Date; claimUntil: Date },
): Promise<ClaimedWebhookDelivery | undefined> {
  const [row] = await queryParsed(runner, CLAIM_SQL, [input.deliveryId, input.now, input.claimUntil, input.attempt], claimedDeliveryRow);
  return row;
}

/**
 * The outcome of an attempt, recorded with it: `pending` again with the time of the next, or final.
 * A retry counts as enqueued now: its caller adds the delayed job next (if that fails, the scan finds
 * the delivery overdue).
 */
const RECORD_SQL = preparedSql(
  "webhook_record_attempt",
  `WITH attempt AS (
     INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms, attempted_at)
     SELECT id, attempts, $4, $5, $6, $7 FROM webhook_deliveries WHERE id = $1 AND attempts = $2
     ON CONFLICT DO NOTHING
   )
   UPDATE webhook_deliveries SET status = $3, last_status_code = $4, last_error = $5, next_attempt_at = $8,
     enqueued_at = CASE WHEN $3::text = 'pending' THEN $9::timestamptz END, claimed_until = NULL, updated_at = $9
   WHERE id = $1 AND attempts = $2 AND status = 'delivering'`,
);

export async function recordWebhookAttempt(
  runner: SqlRunner,
  input: {
    deliveryId: string;
    attempt: number;
    status: "pending" | "succeeded" | "failed";
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    attemptedAt: Date;
    nextAttemptAt: Date | null;
    now: Date;
  },
): Promise<boolean> {
  const changed = await queryRowCount(runner, RECORD_SQL, [
    input.deliveryId,
    input.attempt,
    input.status,
    input.statusCode,
    input.error,
    Math.round(input.durationMs),
    input.attemptedAt,
    input.nextAttemptAt,
    input.now,
  ]);
  return changed > 0;
}
