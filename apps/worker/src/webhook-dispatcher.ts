import { Worker, type Job } from "bullmq";
import type { Logger } from "pino";
import {
  attemptWebhookDelivery,
  deriveWebhookSecretsKey,
  enqueueDueWebhookDeliveries,
  type PrismaClient,
  recentSettings,
  sqlPoolOf,
  systemClock,
  systemHostResolver,
  type WebhookDeliveryDependencies,
} from "@agentq/core";
import {
  CLOSE_TIMEOUT_MS,
  closeOrDisconnect,
  closeWorkerOrDisconnect,
  createRedis,
  parseJob,
  quitOrDisconnect,
  WEBHOOK_QUEUE_NAME,
  WebhookQueue,
  type RedisClient,
} from "@agentq/queue";

export interface WebhookDispatcherOptions {
  prisma: PrismaClient;
  /** A command connection (shared with the worker's other producers). */
  connection: RedisClient;
  redisUrl: string;
  queuePrefix: string;
  workerId: string;
  deploymentSecret: string;
  /** Requests in flight at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  logger: Logger;
  /** Endpoints get this long to answer (WEBHOOK_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** The delay before each retry, one per retry (WorkerConfig.webhookRetryDelaysMs). */
  retryDelaysMs: readonly number[];
  /** Due this long ago and still pending: its job was lost (a flushed Redis); enqueued again (WorkerConfig.webhookLostAfterMs). */
  lostAfterMs: number;
}

export interface WebhookDispatcher {
  close(): Promise<void>;
}

/** How often Postgres is asked for due deliveries: new ones wait at most this long. */
const SCAN_INTERVAL_MS = 1000;
const SCAN_BATCH = 200;

/**
 * Delivers webhooks from this worker process. Deliveries are rows in Postgres, created with their
 * events; a scan every second turns the due ones into jobs on their own queue (so a slow endpoint never
 * takes a run's slot), a job makes one attempt, and a failed attempt that may be retried adds the next
 * attempt's job, delayed. Postgres says what is due, so a lost job (a flushed Redis, a worker that died
 * mid-request) is found again by the scan: delivery is at least once.
 */
export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { logger } = options;
  const runner = sqlPoolOf(options.prisma);
  const queue = new WebhookQueue({ connection: options.connection, prefix: options.queuePrefix });
  const blocking = createRedis({ url: options.redisUrl, maxRetriesPerRequest: null, connectionName: `agentq-worker-webhooks-${options.workerId}` });
  blocking.on("error", (error) => logger.warn({ err: error }, "redis connection error (webhooks)"));

  // `web_fetch_allow` as read within the last few seconds: an admin's change applies within them.
  const settings = recentSettings(options.prisma);
  const dependencies: WebhookDeliveryDependencies = {
    runner,
    secretsKey: deriveWebhookSecretsKey(options.deploymentSecret),
    webFetchAllow: async () => (await settings()).web_fetch_allow,
    resolve: systemHostResolver,
    now: systemClock,
    requestTimeoutMs: options.requestTimeoutMs,
    retryDelaysMs: options.retryDelaysMs,
  };

  const processJob = async (job: Job): Promise<string> => {
    const { payload } = parseJob<"webhook.deliver">(job.name, job.data);
    const outcome = await attemptWebhookDelivery(dependencies, { deliveryId: payload.delivery_id, attemptsMade: payload.attempts_made });
    if (outcome.kind === "retry") await queue.schedule(payload.delivery_id, outcome.attempts, outcome.nextAttemptAt.getTime() - Date.now());
    if (outcome.kind === "failed") logger.info({ delivery_id: payload.delivery_id, reason: outcome.reason }, "webhook delivery failed for good");
    return outcome.kind;
  };
  const worker = new Worker(WEBHOOK_QUEUE_NAME, processJob, { connection: blocking, prefix: options.queuePrefix, concurrency: options.concurrency });
  worker.on("failed", (job, error) => logger.warn({ err: error, job_id: job?.id }, "webhook job failed; the scan retries its delivery"));
  worker.on("error", (error) => logger.warn({ err: error }, "webhook worker error"));

  let scanning: Promise<void> = Promise.resolve();
  let closed = false;
  const scan = async (): Promise<void> => {
    for (;;) {
      const due = await enqueueDueWebhookDeliveries(runner, { now: systemClock(), lostAfterMs: options.lostAfterMs, limit: SCAN_BATCH });
      await Promise.all(due.map((delivery) => queue.schedule(delivery.id, delivery.attempts)));
      if (due.length < SCAN_BATCH || closed) return;
    }
  };
  const timer = setInterval(() => {
    scanning = scanning.then(scan).catch((error: unknown) => logger.warn({ err: error }, "webhook scan failed; it runs again in a second"));
  }, SCAN_INTERVAL_MS);

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      const closing = { logger };
      // A scan enqueues on a connection that waits out a Redis outage: not waited for past the timeout.
      await closeOrDisconnect({ name: "webhook scan", close: () => scanning }, closing);
      // Deliveries in flight get their request's timeout.
      await closeWorkerOrDisconnect(worker, "webhook jobs (BullMQ worker)", { logger, timeoutMs: options.requestTimeoutMs + CLOSE_TIMEOUT_MS });
      await closeOrDisconnect({ name: "webhook queue", close: () => queue.close() }, closing);
      await quitOrDisconnect(blocking, closing);
    },
  };
}
