import { z } from "zod";
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryRecord, type WebhookRecord } from "@agentq/core";

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()).meta({ description: "the durable event types delivered" }),
    description: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Webhook", description: "An endpoint the caller's run events are POSTed to; its secret is shown only when it is created" });

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z.string().meta({ description: "the signing secret (`whsec_…`), shown this once: verify `webhook-signature` with it" }),
  })
  .meta({ id: "CreatedWebhook" });

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) }).meta({ id: "WebhookList" });

export const webhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: "the `webhook-id` header of every attempt" }),
    event: z.string().meta({ description: "the event's type" }),
    run_id: z.string(),
    event_seq: z.number().int(),
    attempts: z.number().int(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({ description: "`pending` (waiting for its next attempt), `delivering`, `succeeded` or `failed`" }),
    last_status_code: z.number().int().nullable().meta({ description: "the endpoint's last answer; null when it gave none" }),
    last_error: z.string().nullable().meta({ description: "why the last attempt failed without an answer (timeout, refused)" }),
    next_attempt_at: z.string().nullable().meta({ description: "when the next attempt is due; null once it succeeded or failed" }),
    created_at: z.string(),
    attempt_log: z
      .array(
        z.object({
          attempt: z.number().int(),
          status_code: z.number().int().nullable(),
          error: z.string().nullable(),
          duration_ms: z.number().int(),
          attempted_at: z.string(),
        }),
      )
      .meta({ description: "every attempt, oldest first" }),
  })
  .meta({ id: "WebhookDelivery" });

export const webhookDeliveryListSchema = z.object({ deliveries: z.array(webhookDeliverySchema) }).meta({ id: "WebhookDeliveryList" });

export function toWebhookView(record: WebhookRecord): z.infer<typeof webhookSchema> {
  return { id: record.id, url: record.url, events: record.events, description: record.description, created_at: record.createdAt.toISOString() };
}

export function toWebhookDeliveryView(record: WebhookDeliveryRecord): z.infer<typeof webhookDeliverySchema> {
  return {
    id: record.id,
    event: record.eventType,
    run_id: record.runId,
    event_seq: record.eventSeq,
    attempts: record.attempts,
    status: record.status,
    last_status_code: record.lastStatusCode,
    last_error: record.lastError,
    // Recording a final outcome clears it: only a delivery still to make has a next attempt.
    next_attempt_at: record.nextAttemptAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    attempt_log: record.attemptLog,
  };
}
