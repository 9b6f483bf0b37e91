import { Queue } from "bullmq";
import type { RedisClient } from "./create-redis.ts";
import { JOB_CATALOG, WEBHOOK_QUEUE_NAME, webhookJobId } from "./job-catalog.ts";

export interface WebhookQueueOptions {
  connection: RedisClient;
  prefix: string;
}

/**
 * Job options of webhook jobs. One BullMQ attempt each: the retries and their backoff are scheduled
 * by the delivery itself (the next attempt's job, delayed, after each failure) and recorded in
 * Postgres, which is also where a lost job is found again (a flushed Redis loses no delivery).
 */
const WEBHOOK_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: { count: 1000 }, attempts: 1 } as const;

/** The producer side of the webhook queue. */
export class WebhookQueue {
  readonly queue: Queue;

  constructor(options: WebhookQueueOptions) {
    this.queue = new Queue(WEBHOOK_QUEUE_NAME, { connection: options.connection, prefix: options.prefix });
  }

  /** Adds the job of a delivery's next attempt, after `delayMs`; the same attempt's job already there is kept. */
  async schedule(deliveryId: string, attemptsMade: number, delayMs = 0): Promise<void> {
    const payload = JOB_CATALOG["webhook.deliver"].parse({ delivery_id: deliveryId, attempts_made: attemptsMade });
    await this.queue.add("webhook.deliver", payload, { ...WEBHOOK_JOB_OPTIONS, jobId: webhookJobId(deliveryId, attemptsMade), delay: Math.max(0, delayMs) });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
