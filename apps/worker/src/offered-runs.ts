import { withTraceCarrier } from "@agentq/core";
import type { RunOffer } from "@agentq/queue";
import type { Logger } from "pino";

export interface OfferedRunsOptions {
  /** WORKER_CONCURRENCY: the slots of BullMQ's jobs and of offered runs together. */
  concurrency: number;
  /** Slots BullMQ's jobs hold now. */
  jobsInProgress: () => number;
  /** False while the worker takes no new runs (paused, stopping). */
  accepting: () => boolean;
  /** Takes the offered run and executes it; settles when the execution ended (handing it on itself if it must). */
  execute: (offer: RunOffer) => Promise<void>;
  /**
   * Hands an offered run to the queue, unleased first if its decision handed it over leased to this
   * worker (core runs/resume-handover.ts). Best effort: the reconciler finds a queued run without a job,
   * and a leased one once its lease has run out.
   */
  enqueue: (offer: RunOffer) => Promise<void>;
  /** BullMQ's own concurrency, set whenever the slots lent to offered runs change (at least 1). */
  setJobConcurrency: (slots: number) => void;
  /**
   * How long a handed-over run waits for a slot before it goes to the queue, where any worker may take
   * it. Default 5 s (OFFER_MAX_WAIT_MS): the API picks a worker by its free slots as of its last beat,
   * so a full worker is sometimes offered a run while another has slots free.
   */
  maxWaitMs?: number;
  logger: Logger;
}

/** The default `maxWaitMs`. */
export const OFFER_MAX_WAIT_MS = 5000;

/**
 * How long a decision left to this worker waits for the run's execution here to end. Default 500 ms:
 * the execution that parked the run ends within milliseconds of the park; one that holds the run for
 * longer is another decision's, and this one's API, waiting for the answer, is better told at once.
 */
export const PREVIOUS_EXECUTION_WAIT_MS = 500;

/** True once `execution` has settled, false if it has not within `ms`. */
function endedWithin(execution: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void execution.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

interface WaitingOffer {
  offer: RunOffer;
  giveUp: NodeJS.Timeout;
}

/** A handed-over run waiting for a slot of this worker: its lease, which the worker renews meanwhile. */
export interface WaitingLease {
  runId: string;
  leaseVersion: number;
}

/**
 * The runs offered to this worker directly (queue run-offer.ts): a new run the API or this worker
 * admitted, or a run whose approval was decided, skips the queue's fetch loop. An offer is taken while
 * a slot is free, and the slots offered runs take are lent from BullMQ's concurrency, so the two
 * together stay within the worker's. BullMQ keeps at least one slot (its concurrency cannot be 0), so
 * offered runs hold at most `concurrency - 1`, and a worker of one slot takes no offers.
 *
 * With no slot free, a run its decision handed over (leased to this worker, with its context) waits
 * here for the next slot that frees, ahead of the queue's new runs: a BullMQ job's end (`slotFreed`,
 * called before BullMQ looks for its next job) and an offered execution's end start it at once, so
 * the slot is never fetched away (a job's end only while offered runs hold fewer than
 * `concurrency - 1` slots: the last one is BullMQ's own, which fetches into it; the next offered run's
 * end starts it then). A decided approval then queues behind no new run, and is not unleased, enqueued
 * and taken again (a statement, a queue job and a take more, which PARKED's resume, 10,000 decisions on
 * a full worker, paid for most runs). At most as many runs wait as offered runs can hold slots
 * (`concurrency - 1`: new runs are offered too, so on a busy worker those slots are mostly taken by
 * offered runs, whose ends then start the waiting ones), each for at most `maxWaitMs`; past either,
 * for a plain offer (a new run, or a decided one not handed over), and when the worker is paused or
 * stopping, the run goes to the queue as the API would have sent it. A decision left to this worker
 * (queue run-decision-offer.ts) never waits for a slot: with none free it is declined at once, and the
 * API commits it and offers the run as above. The worker renews the waiting
 * runs' leases with its own (`waitingLeases`), and drops a waiting run whose lease it lost
 * (`dropLost`: a cancel took it).
 */
export class OfferedRuns {
  readonly #options: OfferedRunsOptions;
  readonly #executions = new Set<Promise<void>>();
  /** Settles when every execution of the run started here so far has ended (#start). */
  readonly #executionOfRun = new Map<string, Promise<void>>();
  readonly #waiting: WaitingOffer[] = [];

  constructor(options: OfferedRunsOptions) {
    this.#options = options;
  }

  receive(offer: RunOffer): void {
    if (!this.#options.accepting()) {
      void this.#options.enqueue(offer);
    } else if (this.#waiting.length === 0 && this.#slotFree()) {
      // The common case: no run waits before it (every freed slot starts the first waiting run at once).
      this.#start(offer);
    } else if (offer.handover && !offer.decision && this.#waiting.length < this.#options.concurrency - 1) {
      // In line behind the runs already waiting, for the next slot that frees.
      const giveUp = setTimeout(() => this.#giveUp(offer), this.#options.maxWaitMs ?? OFFER_MAX_WAIT_MS);
      giveUp.unref();
      this.#waiting.push({ offer, giveUp });
      this.#startWaiting();
    } else {
      void this.#options.enqueue(offer);
    }
  }

  /** A slot of BullMQ's jobs was freed: a waiting run takes it. */
  slotFreed(): void {
    this.#startWaiting();
  }

  /** The leases of the handed-over runs waiting for a slot, for the worker to renew with its own. */
  waitingLeases(): WaitingLease[] {
    return this.#waiting.map(({ offer }) => ({ runId: offer.runId, leaseVersion: offer.generation.leaseVersion }));
  }

  /** Forgets the waiting runs whose lease (this version of it) this worker no longer holds: their new holder goes on. */
  dropLost(leases: readonly WaitingLease[]): void {
    for (const lease of leases) {
      const index = this.#waiting.findIndex(({ offer }) => offer.runId === lease.runId && offer.generation.leaseVersion === lease.leaseVersion);
      if (index >= 0) clearTimeout(this.#waiting.splice(index, 1)[0]!.giveUp);
    }
  }

  /** Sends every waiting run to the queue (the worker is pausing or stopping); settles once they are there. */
  async handBackWaiting(): Promise<void> {
    const waiting = this.#waiting.splice(0);
    for (const { giveUp } of waiting) clearTimeout(giveUp);
    await Promise.allSettled(waiting.map(({ offer }) => this.#options.enqueue(offer)));
  }

  /** Settles when every offered run taken so far has ended (a stopping worker waits for them as BullMQ waits for its jobs). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#executions);
  }

  #slotFree(): boolean {
    const taken = this.#executions.size;
    return this.#options.jobsInProgress() + taken < this.#options.concurrency && taken + 1 < this.#options.concurrency;
  }

  #startWaiting(): void {
    if (this.#waiting.length === 0) return;
    if (!this.#options.accepting()) {
      void this.handBackWaiting();
      return;
    }
    while (this.#waiting.length > 0 && this.#slotFree()) {
      const { offer, giveUp } = this.#waiting.shift()!;
      clearTimeout(giveUp);
      this.#start(offer);
    }
  }

  /** A run that waited `maxWaitMs` goes to the queue, where a worker with a free slot takes it. */
  #giveUp(offer: RunOffer): void {
    const index = this.#waiting.findIndex((waiting) => waiting.offer === offer);
    if (index < 0) return;
    this.#waiting.splice(index, 1);
    void this.#options.enqueue(offer);
  }

  #start(offer: RunOffer): void {
    // One execution of a run at a time here: a run offered again while one is in progress starts once
    // that one has ended. Usually that one is the execution that parked the run, still winding up when
    // a quick decision arrives; or a decision from another click, which the fence lets through or not.
    // A decision waits for it PREVIOUS_EXECUTION_WAIT_MS at most (its API waits for the answer), and is
    // declined past that, for its API to commit it (the fence decides between the two decisions).
    const previous = this.#executionOfRun.get(offer.runId);
    // The deciding request's trace goes on in the execution, as a job's would.
    const executeOffer = () => withTraceCarrier(offer.trace, () => this.#options.execute(offer));
    const afterPrevious = (): Promise<void> => {
      if (!previous) return executeOffer();
      if (!offer.decision) return previous.then(executeOffer);
      return endedWithin(previous, PREVIOUS_EXECUTION_WAIT_MS).then((ended) => (ended ? executeOffer() : this.#options.enqueue(offer)));
    };
    const execution: Promise<void> = afterPrevious()
      .catch((error: unknown) => {
        this.#options.logger.warn({ err: error, run_id: offer.runId }, "could not take an offered run; enqueueing it");
        return this.#options.enqueue(offer);
      })
      .finally(() => {
        this.#executions.delete(execution);
        this.#startWaiting();
        this.#lend();
      });
    this.#executions.add(execution);
    // The run's executions here are over once this one and the one before it are (a declined decision
    // ends before the execution it did not wait for).
    const runDone = previous ? Promise.all([previous, execution]).then(() => undefined) : execution;
    this.#executionOfRun.set(offer.runId, runDone);
    void runDone.then(() => {
      if (this.#executionOfRun.get(offer.runId) === runDone) this.#executionOfRun.delete(offer.runId);
    });
    this.#lend();
  }

  #lend(): void {
    this.#options.setJobConcurrency(Math.max(1, this.#options.concurrency - this.#executions.size));
  }
}
