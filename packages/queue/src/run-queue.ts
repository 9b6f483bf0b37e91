import { Queue, type Telemetry } from "bullmq";
import type { QueueCounts, RunGeneration } from "@agentq/core";
import type { RedisClient } from "./create-redis.ts";
import { JOB_CATALOG, RUN_QUEUE_NAME, runGeneration, runJobId } from "./job-catalog.ts";

export interface RunQueueOptions {
  /** A request-path connection (fail fast) for the API; one that waits for the workers. */
  connection: RedisClient;
  prefix: string;
  /**
   * BullMQ's telemetry (bullmq-otel) when the process traces: a job then carries the trace context of
   * the request that enqueued it, and the worker's execution continues that trace. Default none.
   */
  telemetry?: Telemetry;
}

/** Job options of every run job. Completed jobs are removed (state is in Postgres); a few failed ones are kept to look at. */
const RUN_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
  attempts: 5,
  backoff: { type: "exponential", delay: 1000 },
} as const;

/**
 * BullMQ hands out jobs without a priority before any prioritized one, FIFO within each. A run that
 * no worker has taken yet (lease version 0: a new run, the chat's next one) gets this priority, so a
 * run that has started before (a decided approval, a run recovered after a crash) goes ahead of new
 * work when jobs wait for a slot: the person who decided an approval is waiting on it, and a started
 * run holds state (workspace changes, a transcript) that should finish before more is started.
 */
const NOT_STARTED_PRIORITY = 1;

/** The producer side of the run queue: what the API, the workers and the reconciler enqueue with. */
export class RunQueue {
  readonly queue: Queue;

  constructor(options: RunQueueOptions) {
    this.queue = new Queue(RUN_QUEUE_NAME, {
      connection: options.connection,
      prefix: options.prefix,
      telemetry: options.telemetry,
    });
  }

  /**
   * Enqueues the execution of a run; a job with the same generation already queued is kept, not
   * doubled. A run that has started before goes ahead of runs that have not (NOT_STARTED_PRIORITY).
   */
  async schedule(runId: string, generation: RunGeneration): Promise<void> {
    const payload = JOB_CATALOG["run.execute"].parse({ run_id: runId });
    const jobId = runJobId(runId, runGeneration(generation.lastEventSeq, generation.leaseVersion));
    const priority = generation.leaseVersion > 0 ? {} : { priority: NOT_STARTED_PRIORITY };
    await this.queue.add("run.execute", payload, { ...RUN_JOB_OPTIONS, ...priority, jobId });
  }

  /**
   * Enqueues unless a live job (waiting, delayed, active) exists for that generation, or
   * `stillNeeded` (checked after Redis was looked at) says the run no longer needs one. A finished
   * or failed job of the same id is removed first, so a run that needs another go gets one.
   */
  async ensureScheduled(runId: string, generation: RunGeneration, stillNeeded?: () => Promise<boolean>): Promise<"scheduled" | "live" | "not_needed"> {
    const job = await this.queue.getJob(runJobId(runId, runGeneration(generation.lastEventSeq, generation.leaseVersion)));
    if (job) {
      const state = await job.getState();
      if (state !== "completed" && state !== "failed" && state !== "unknown") return "live";
    }
    // Asked after the look in Redis: a run that moved on meanwhile needs no job.
    if (stillNeeded && !(await stillNeeded())) return "not_needed";
    if (job) await job.remove().catch(() => undefined);
    await this.schedule(runId, generation);
    return "scheduled";
  }

  /** Jobs by state (GET /api/services, the service_status tool). */
  async jobCounts(): Promise<QueueCounts> {
    const counts = await this.queue.getJobCounts("waiting", "prioritized", "waiting-children", "active", "delayed", "failed");
    // BullMQ keeps prioritized jobs (runs not started yet) apart from the others: both wait for a worker.
    const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts["waiting-children"] ?? 0);
    return { waiting, active: counts.active ?? 0, delayed: counts.delayed ?? 0, failed: counts.failed ?? 0 };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
