import { withTraceCarrier } from "@agentq/core";
import type { ResumeOffer } from "@agentq/queue";
import type { Logger } from "pino";

export interface OfferedRunsOptions {
  /** WORKER_CONCURRENCY: the slots of BullMQ's jobs and of offered runs together. */
  concurrency: number;
  /** Slots BullMQ's jobs hold now. */
  jobsInProgress: () => number;
  /** False while the worker takes no new runs (paused, stopping). */
  accepting: () => boolean;
  /** Takes the offered run and executes it; settles when the execution ended (handing it on itself if it must). */
  execute: (offer: ResumeOffer) => Promise<void>;
  /**
   * Hands an offered run to the queue, unleased first if its decision handed it over leased to this
   * worker (core runs/resume-handover.ts). Best effort: the reconciler finds a queued run without a job,
   * and a leased one once its lease has run out.
   */
  enqueue: (offer: ResumeOffer) => Promise<void>;
  /** BullMQ's own concurrency, set whenever the slots lent to offered runs change (at least 1). */
  setJobConcurrency: (slots: number) => void;
  logger: Logger;
}

/**
 * The runs offered to this worker directly (queue resume-offer.ts): a run whose approval was decided
 * skips the queue's fetch loop. An offer is taken while a slot is free, and the slots offered runs
 * take are lent from BullMQ's concurrency, so the two together stay within the worker's; otherwise
 * (no free slot, paused, stopping) the run goes to the queue as the API would have sent it. BullMQ
 * keeps at least one slot (its concurrency cannot be 0), so a worker of one slot takes no offers.
 */
export class OfferedRuns {
  readonly #options: OfferedRunsOptions;
  readonly #executions = new Set<Promise<void>>();

  constructor(options: OfferedRunsOptions) {
    this.#options = options;
  }

  receive(offer: ResumeOffer): void {
    const { concurrency } = this.#options;
    const taken = this.#executions.size;
    if (!this.#options.accepting() || this.#options.jobsInProgress() + taken >= concurrency || taken + 1 >= concurrency) {
      void this.#options.enqueue(offer);
      return;
    }
    // The deciding request's trace goes on in the execution, as a job's would.
    const execution: Promise<void> = withTraceCarrier(offer.trace, () => this.#options.execute(offer))
      .catch((error: unknown) => {
        this.#options.logger.warn({ err: error, run_id: offer.runId }, "could not take an offered run; enqueueing it");
        return this.#options.enqueue(offer);
      })
      .finally(() => {
        this.#executions.delete(execution);
        this.#lend();
      });
    this.#executions.add(execution);
    this.#lend();
  }

  /** Settles when every offered run taken so far has ended (a stopping worker waits for them as BullMQ waits for its jobs). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#executions);
  }

  #lend(): void {
    this.#options.setJobConcurrency(Math.max(1, this.#options.concurrency - this.#executions.size));
  }
}
