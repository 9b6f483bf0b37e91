import { z } from "zod";
import {
  type CommonConfig,
  commonConfigFromEnvironment,
  commonEnvironmentShape,
  type EmailConfig,
  emailConfigFromEnvironment,
  emailEnvironmentShape,
  parseEnvironment,
  WEBHOOK_RETRY_DELAYS_MS,
} from "@agentq/core";

const positiveInteger = (fallback: number, max: number) =>
  z.string().regex(/^\d+$/, "expected a whole number").transform(Number).pipe(z.number().int().min(1).max(max)).default(fallback);

/** The worker's environment: the shared variables plus its own (API.md's table, and tuning knobs). */
export const workerEnvironmentSchema = z.object({
  ...commonEnvironmentShape,
  ...emailEnvironmentShape,
  WORKER_CONCURRENCY: positiveInteger(50, 10_000),
  /** How long a worker's hold on a run lasts without renewal. Default 30 s (renewed every 10 s). */
  RUN_LEASE_MS: positiveInteger(30_000, 3_600_000),
  /** How often the reconciler looks for runs with no live job. Default 15 s. */
  RECONCILE_INTERVAL_MS: positiveInteger(15_000, 3_600_000),
  /** How long SIGTERM waits for runs to reach a committed point before aborting them. Default 20 s. */
  SHUTDOWN_GRACE_MS: positiveInteger(20_000, 600_000),
  /** BullMQ job lock; a worker that stops renewing it loses the job after this long. Default 30 s. */
  JOB_LOCK_MS: positiveInteger(30_000, 3_600_000),
  /**
   * The context window (tokens) of models agentq's table does not know (a local model, a new one).
   * Default 8192: safe on any model; raise it for a model with a larger window, since the tool schemas
   * of every family alone take several thousand tokens.
   */
  MODEL_CONTEXT_WINDOW: positiveInteger(8192, 10_000_000),
  /** Webhook requests in flight at once in this process. Default 16: endpoints are slow, not busy. */
  WEBHOOK_CONCURRENCY: positiveInteger(16, 1000),
  /** How long a webhook endpoint has to answer an attempt. Default 10 s; longer holds a slot longer. */
  WEBHOOK_TIMEOUT_MS: positiveInteger(10_000, 120_000),
});

export interface WorkerConfig extends CommonConfig {
  concurrency: number;
  leaseMs: number;
  reconcileIntervalMs: number;
  shutdownGraceMs: number;
  jobLockMs: number;
  /** MODEL_CONTEXT_WINDOW: the context window of models the table does not know. */
  defaultContextWindow: number;
  /** SMTP_URL and EMAIL_FROM; null without SMTP_URL (send_email is not offered). */
  email: EmailConfig | null;
  /** WEBHOOK_CONCURRENCY: webhook deliveries in flight at once. */
  webhookConcurrency: number;
  /** WEBHOOK_TIMEOUT_MS: how long an endpoint has to answer. */
  webhookTimeoutMs: number;
  /**
   * The delay before each webhook retry, one per retry. Not read from the environment: always
   * WEBHOOK_RETRY_DELAYS_MS (5 s, 30 s, 2 min... over about 4 h 45 min), the schedule API.md promises;
   * tests shorten it.
   */
  webhookRetryDelaysMs: readonly number[];
  /**
   * How long past its due time a pending webhook delivery's job counts as lost (a flushed Redis) and is
   * enqueued again. Not read from the environment: always 10 s, short because enqueueing again is
   * harmless (adding a job that still exists is a no-op, same job id, and a duplicate of an attempt
   * claims nothing); tests shorten it.
   */
  webhookLostAfterMs: number;
}

export function parseWorkerConfig(environment: Record<string, string | undefined>): WorkerConfig {
  const parsed = parseEnvironment(workerEnvironmentSchema, environment);
  return {
    ...commonConfigFromEnvironment(parsed),
    concurrency: parsed.WORKER_CONCURRENCY,
    leaseMs: parsed.RUN_LEASE_MS,
    reconcileIntervalMs: parsed.RECONCILE_INTERVAL_MS,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
    jobLockMs: parsed.JOB_LOCK_MS,
    defaultContextWindow: parsed.MODEL_CONTEXT_WINDOW,
    email: emailConfigFromEnvironment(parsed),
    webhookConcurrency: parsed.WEBHOOK_CONCURRENCY,
    webhookTimeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
    webhookRetryDelaysMs: WEBHOOK_RETRY_DELAYS_MS,
    webhookLostAfterMs: 10_000,
  };
}
