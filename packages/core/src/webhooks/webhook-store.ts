import { z } from "zod";
import { NotFoundError } from "../errors/agentq-error.ts";
import { RUN_EVENT_TYPES } from "../events/run-event.ts";
import type { GenerateId } from "../ids.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import {
  deleteOwnWebhook,
  insertWebhook,
  selectOwnWebhook,
  selectOwnWebhooks,
  selectWebhookDeliveries,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from "../store/statements/webhook-statements.ts";
import type { HostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import { checkWebhookDestination } from "./check-webhook-destination.ts";
import { deriveWebhookSecretsKey, generateWebhookSecret, sealWebhookSecret } from "./webhook-secret.ts";

/** `POST /api/webhooks`. */
export const webhookRegistrationSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .meta({ description: "where events are POSTed; the SSRF guard applies (`web_fetch_allow` admits private hosts)" }),
    events: z
      .array(z.enum(RUN_EVENT_TYPES))
      .min(1)
      .max(RUN_EVENT_TYPES.length)
      .refine((events) => new Set(events).size === events.length, "each event type once")
      .meta({ description: "the durable event types to deliver" }),
    description: z.string().max(500).optional(),
  })
  .strict();
export type WebhookRegistration = z.infer<typeof webhookRegistrationSchema>;

export interface WebhookStoreDependencies {
  runner: SqlRunner;
  /** The deployment's secret: the key that seals signing secrets at rest is derived from it. */
  deploymentSecret: string;
  webFetchAllow: readonly string[];
  resolve: HostResolver;
  generateId: GenerateId;
  now: () => Date;
}

/** Registers an endpoint. The signing secret is returned here and never again (it is stored sealed). */
export async function createWebhook(
  dependencies: WebhookStoreDependencies,
  userId: string,
  registration: WebhookRegistration,
): Promise<WebhookRecord & { secret: string }> {
  await checkWebhookDestination(registration.url, { webFetchAllow: dependencies.webFetchAllow, resolve: dependencies.resolve });
  const id = dependencies.generateId("wh");
  const secret = generateWebhookSecret();
  const record = await insertWebhook(dependencies.runner, {
    id,
    userId,
    url: registration.url,
    events: registration.events,
    description: registration.description ?? null,
    sealedSecret: sealWebhookSecret(deriveWebhookSecretsKey(dependencies.deploymentSecret), id, secret),
    now: dependencies.now(),
  });
  return { ...record, secret };
}

export function listWebhooks(runner: SqlRunner, userId: string): Promise<WebhookRecord[]> {
  return selectOwnWebhooks(runner, userId);
}

export async function removeWebhook(runner: SqlRunner, userId: string, webhookId: string): Promise<void> {
  if (!(await deleteOwnWebhook(runner, { userId, webhookId }))) throw new NotFoundError("webhook", { webhook_id: webhookId });
}

/** The endpoint's latest deliveries, newest first; someone else's endpoint is not found. */
export async function listWebhookDeliveries(runner: SqlRunner, userId: string, webhookId: string, limit: number): Promise<WebhookDeliveryRecord[]> {
  if (!(await selectOwnWebhook(runner, { userId, webhookId }))) throw new NotFoundError("webhook", { webhook_id: webhookId });
  return selectWebhookDeliveries(runner, { webhookId, limit });
}
