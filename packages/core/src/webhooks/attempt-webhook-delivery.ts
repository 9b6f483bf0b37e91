import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { DestinationNotAllowedError } from "../tools/web/ssrf/destination-not-allowed-error.ts";
import { checkUrlBeforeConnect, createGuardedLookup, type HostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import { parseWebFetchAllowList } from "../tools/web/ssrf/web-fetch-allow-list.ts";
import type { SqlRunner } from "../store/sql-pool.ts";
import { claimWebhookDelivery, recordWebhookAttempt, type ClaimedWebhookDelivery } from "../store/statements/webhook-statements.ts";
import { WEBHOOK_REFUSAL_SUBJECT } from "./check-webhook-destination.ts";
import { signWebhook } from "./sign-webhook.ts";
import { webhookRetryDelayMs } from "./webhook-retry-schedule.ts";
import { openWebhookSecret } from "./webhook-secret.ts";

export interface WebhookDeliveryDependencies {
  runner: SqlRunner;
  /** The key stored signing secrets are sealed with (deriveWebhookSecretsKey). */
  secretsKey: Buffer;
  /** The current `web_fetch_allow` setting. */
  webFetchAllow: () => Promise<readonly string[]>;
  resolve: HostResolver;
  now: () => Date;
  /** How long the endpoint has to answer (default 10 s: Standard Webhooks suggests a short timeout). */
  requestTimeoutMs?: number;
  /**
   * The delay before each retry, one per retry: a delivery gets `retryDelaysMs.length + 1` attempts.
   * Default WEBHOOK_RETRY_DELAYS_MS (5 s, 30 s, 2 min... over about 4 h 45 min, what API.md promises);
   * tests shorten it so that a retry does not take seconds to watch.
   */
  retryDelaysMs?: readonly number[];
}

/** What an attempt came to: `retry` says when the next is due (the caller schedules its job). */
export type WebhookAttemptOutcome =
  | { kind: "skipped" }
  | { kind: "succeeded"; statusCode: number }
  | { kind: "retry"; nextAttemptAt: Date; attempts: number }
  | { kind: "failed"; reason: string };

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The claim outlives the request's timeout with a margin: past it, the attempt counts as lost with its worker. */
const CLAIM_MARGIN_MS = 5000;

/**
 * Makes attempt `attemptsMade + 1` of a delivery: claims it (a duplicate job takes nothing), POSTs the
 * signed event, and records the attempt and the delivery's new state in one statement. A 2xx ends
 * it; a timeout, a network error, a 429 or a 5xx is retried on the schedule; any other answer (a
 * 4xx, a redirect) and a refused destination end it as failed.
 */
export async function attemptWebhookDelivery(
  dependencies: WebhookDeliveryDependencies,
  job: { deliveryId: string; attemptsMade: number },
): Promise<WebhookAttemptOutcome> {
  const timeoutMs = dependencies.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const claimedAt = dependencies.now();
  const delivery = await claimWebhookDelivery(dependencies.runner, {
    deliveryId: job.deliveryId,
    attempt: job.attemptsMade,
    now: claimedAt,
    claimUntil: new Date(claimedAt.getTime() + timeoutMs + CLAIM_MARGIN_MS),
  });
  if (!delivery) return { kind: "skipped" };

  const started = performance.now();
  const answer = await send(dependencies, delivery, timeoutMs);
  const durationMs = performance.now() - started;
  const now = dependencies.now();
  const retryDelay = answer.retryable ? webhookRetryDelayMs(delivery.attempts, Math.random, dependencies.retryDelaysMs) : null;
  const outcome: WebhookAttemptOutcome = answer.ok
    ? { kind: "succeeded", statusCode: answer.statusCode ?? 200 }
    : retryDelay !== null
      ? { kind: "retry", nextAttemptAt: new Date(now.getTime() + retryDelay), attempts: delivery.attempts }
      : { kind: "failed", reason: answer.error ?? `the endpoint answered ${answer.statusCode}` };
  await recordWebhookAttempt(dependencies.runner, {
    deliveryId: delivery.id,
    attempt: delivery.attempts,
    status: outcome.kind === "retry" ? "pending" : outcome.kind === "succeeded" ? "succeeded" : "failed",
    statusCode: answer.statusCode,
    error: answer.error,
    durationMs,
    attemptedAt: claimedAt,
    nextAttemptAt: outcome.kind === "retry" ? outcome.nextAttemptAt : null,
    now,
  });
  return outcome;
}

interface EndpointAnswer {
  ok: boolean;
  retryable: boolean;
  statusCode: number | null;
  error: string | null;
}

/** The request body (API.md): the event as clients read it, with its run and chat. */
export function webhookBody(delivery: ClaimedWebhookDelivery): string {
  const at = delivery.eventAt.toISOString();
  return JSON.stringify({
    type: delivery.eventType,
    timestamp: at,
    data: { run_id: delivery.runId, chat_id: delivery.chatId, event: { seq: delivery.eventSeq, type: delivery.eventType, at, data: delivery.eventData } },
  });
}

async function send(dependencies: WebhookDeliveryDependencies, delivery: ClaimedWebhookDelivery, timeoutMs: number): Promise<EndpointAnswer> {
  let secret: string;
  try {
    secret = openWebhookSecret(dependencies.secretsKey, delivery.webhookId, delivery.secret);
  } catch {
    return {
      ok: false,
      retryable: false,
      statusCode: null,
      error: "the signing secret cannot be read (the deployment's APPROVAL_SECRET changed): register the webhook again",
    };
  }
  const url = new URL(delivery.url);
  const allowList = parseWebFetchAllowList(await dependencies.webFetchAllow());
  try {
    checkUrlBeforeConnect(url, allowList);
  } catch (error) {
    if (error instanceof DestinationNotAllowedError) return { ok: false, retryable: false, statusCode: null, error: error.as(WEBHOOK_REFUSAL_SUBJECT).message };
    throw error;
  }
  const body = webhookBody(delivery);
  const timestamp = Math.floor(dependencies.now().getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": "agentq-webhooks/1",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook({ secret, id: delivery.id, timestamp, body }),
  };
  const sendRequest = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<EndpointAnswer>((resolve) => {
    const request = sendRequest(url, {
      method: "POST",
      headers,
      agent: false,
      lookup: createGuardedLookup({ url, allowList, resolve: dependencies.resolve }),
    });
    // The whole exchange, not only socket inactivity, has to fit in the timeout.
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let settled = false;
    const settle = (answer: EndpointAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(answer);
    };
    request.on("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      // The status decides; the body is not read for anything, only drained so the socket closes
      // (a body cut short by the deadline or the endpoint still leaves its status as the answer).
      response.resume();
      response.on("end", () => settle(classify(statusCode)));
      response.on("error", () => settle(classify(statusCode)));
      response.on("close", () => settle(classify(statusCode)));
    });
    request.on("error", (error) => {
      if (error instanceof DestinationNotAllowedError)
        settle({ ok: false, retryable: false, statusCode: null, error: error.as(WEBHOOK_REFUSAL_SUBJECT).message });
      else settle({ ok: false, retryable: true, statusCode: null, error: error.message });
    });
    request.on("close", () => settle({ ok: false, retryable: true, statusCode: null, error: "the connection closed without an answer" }));
    request.end(body);
  });
}

function classify(statusCode: number): EndpointAnswer {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, retryable: false, statusCode, error: null };
  const retryable = statusCode === 429 || statusCode === 408 || statusCode >= 500;
  const error = statusCode >= 300 && statusCode < 400 ? `the endpoint answered ${statusCode}: redirects are not followed` : null;
  return { ok: false, retryable, statusCode, error };
}
