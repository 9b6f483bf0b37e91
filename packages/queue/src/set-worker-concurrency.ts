import type { Worker } from "bullmq";

/** The part of BullMQ's Worker that setWorkerConcurrency wakes: its fetch loop's queue (private in BullMQ 6). */
interface FetchLoop {
  mainLoopQueue?: { add(promise: Promise<unknown>): void } | null;
}

/**
 * Sets a BullMQ worker's concurrency and, when it rose, wakes the worker's fetch loop. BullMQ 6's loop
 * compares its jobs with its concurrency only when one of its jobs ends: a slot given back while every
 * job of the loop ran long (a slow model) stayed idle until one of them ended. The wake is BullMQ's own
 * (its resume() adds a settled promise to the loop's queue: the loop looks again and fetches up to the
 * new concurrency). Where the loop's queue is not there (not running, or another BullMQ), the slot waits
 * for a job's end as before; test/queue-worker-concurrency.test.ts fails if the wake stops working.
 */
export function setWorkerConcurrency(worker: Worker, slots: number): void {
  const raised = slots > worker.concurrency;
  worker.concurrency = slots;
  if (raised) (worker as unknown as FetchLoop).mainLoopQueue?.add(Promise.resolve());
}
