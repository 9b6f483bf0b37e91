import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RunGeneration } from "@agentq/core";
import { JOB_CATALOG, RUN_QUEUE_NAME, runGeneration, runJobId } from "./job-catalog.ts";

export interface RunQueueOptions {
  connection: Redis;
  prefix: string;
}

/** Job options of every run job. Completed jobs are removed (state is in Postgres); a few failed ones are kept to look at. */
const RUN_JOB_OPTIONS = {
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
  attempts: 5,
  backoff: { type: "exponential", delay: 1000 },
} as const;

/** The producer side of the run queue: what the API, the workers and the reconciler enqueue with. */
export class RunQueue {
  readonly queue: Queue;

  constructor(options: RunQueueOptions) {
    this.queue = new Queue(RUN_QUEUE_NAME, { connection: options.connection, prefix: options.prefix });
  }

  /** Enqueues the execution of a run; a job with the same generation already queued is kept, not doubled. */
  async schedule(runId: string, generation: RunGeneration): Promise<void> {
    const payload = JOB_CATALOG["run.execute"].parse({ run_id: runId });
    const jobId = runJobId(runId, runGeneration(generation.lastEventSeq, generation.leaseVersion));
    await this.queue.add("run.execute", payload, { ...RUN_JOB_OPTIONS, jobId });
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

  async close(): Promise<void> {
    await this.queue.close();
  }
}
