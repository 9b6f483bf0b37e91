import { z } from "zod";
import {
  createWebhook,
  generateId,
  listWebhookDeliveries,
  listWebhooks,
  loadSettings,
  removeWebhook,
  sqlPoolOf,
  systemClock,
  systemHostResolver,
  webhookRegistrationSchema,
} from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { limitQuery } from "../schemas/common-schemas.ts";
import { createdWebhookSchema, toWebhookDeliveryView, toWebhookView, webhookDeliveryListSchema, webhookListSchema } from "../schemas/webhook-schemas.ts";

const WEBHOOK_ID = "the webhook's id";

/** The caller's webhooks (API.md "Webhooks, tracing, the client and the CLI"): their own only. */
export const webhookRoutes = [
  defineRoute({
    method: "post",
    path: "/api/webhooks",
    operationId: "createWebhook",
    summary: "Register a webhook",
    description:
      "Events of the caller's runs of the listed types are POSTed to `url` with Standard Webhooks headers, signed with the secret returned " +
      "here once. The SSRF guard and `web_fetch_allow` apply, at registration and at every delivery.",
    body: webhookRegistrationSchema.meta({ id: "WebhookRegistration" }),
    responses: { 201: { description: "the webhook, with its signing secret (shown only now)", schema: createdWebhookSchema } },
    errors: { 400: "`destination_not_allowed`: the URL names a private address that `web_fetch_allow` does not admit" },
    handler: async ({ dependencies, user, body }) => {
      const settings = await loadSettings(dependencies.prisma);
      const created = await createWebhook(
        {
          runner: sqlPoolOf(dependencies.prisma),
          deploymentSecret: dependencies.runs.approvalSecret,
          webFetchAllow: settings.web_fetch_allow,
          resolve: systemHostResolver,
          generateId,
          now: systemClock,
        },
        user.id,
        body,
      );
      return { status: 201, body: { ...toWebhookView(created), secret: created.secret } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/webhooks",
    operationId: "listWebhooks",
    summary: "The caller's webhooks",
    responses: { 200: { description: "every webhook, oldest first", schema: webhookListSchema } },
    handler: async ({ dependencies, user }) => ({
      status: 200,
      body: { webhooks: (await listWebhooks(sqlPoolOf(dependencies.prisma), user.id)).map(toWebhookView) },
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/webhooks/:id",
    operationId: "deleteWebhook",
    summary: "Remove a webhook",
    description: "Its pending deliveries are dropped with it.",
    parameters: { id: WEBHOOK_ID },
    responses: { 204: { description: "removed" } },
    handler: async ({ dependencies, user, params }) => {
      await removeWebhook(sqlPoolOf(dependencies.prisma), user.id, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/webhooks/:id/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "A webhook's deliveries, newest first",
    parameters: { id: WEBHOOK_ID },
    query: z.object({ limit: limitQuery(100, 500) }),
    responses: { 200: { description: "its latest deliveries, each with every attempt", schema: webhookDeliveryListSchema } },
    handler: async ({ dependencies, user, params, query }) => ({
      status: 200,
      body: { deliveries: (await listWebhookDeliveries(sqlPoolOf(dependencies.prisma), user.id, params.id, query.limit)).map(toWebhookDeliveryView) },
    }),
  }),
];
