import { type DispatchDependencies, dispatchRunsOfUser } from "./admit-runs.ts";

/** How long an enqueue failure nobody asked about is kept: far longer than a request waits for its round. */
const FAILURE_KEPT_MS = 60_000;

/** A round in progress: its admission committed (`admitted`), and its enqueues done too (`finished`). Neither rejects. */
interface Round {
  admitted: Promise<void>;
  finished: Promise<void>;
}

/**
 * Admission of a user's runs (admit-runs.ts) in shared rounds, one at a time per user in this
 * process. A request made while a round runs is served by the next round, which every request made
 * meanwhile shares: a burst of runs created, taken or ended costs a few admissions, not one each.
 * Each round is a transaction holding the user's row lock; rounds keep that lock out of run
 * creation, so one user's creations do not queue behind each other on it.
 *
 * The next round starts as soon as the current one's admission is committed, while the current one's
 * runs are still being enqueued: a round waited for the previous one's enqueues too, and while Redis
 * could not take a job (a cluster's slot between its master's death and a replica's takeover) each
 * request waited for two enqueue timeouts, its round's and the one before. The enqueues of one round
 * are sent before the next round's admission statement returns, so the queue still receives a
 * user's runs in admission order. A request still resolves only when the round before its own has
 * finished enqueuing as well: the run it created may have been admitted by that round.
 *
 * A round that could not enqueue a run it admitted (Redis down) leaves it admitted in Postgres for
 * the reconciler, and remembers the failure for `takeFailure`: the request that created the run
 * reports it, whichever round admitted it.
 */
export class AdmissionRounds {
  /** The latest round of each user that has not finished. */
  private readonly running = new Map<string, Round>();
  private readonly next = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, { error: unknown; at: number }>();

  /** `dispatch`: what a round does (tests give a fake). */
  constructor(
    private readonly dependencies: DispatchDependencies,
    private readonly dispatch: typeof dispatchRunsOfUser = dispatchRunsOfUser,
  ) {}

  /** Resolves once a round that started after this call has admitted what the user's limits allow and enqueued it (never rejects). */
  request(userId: string): Promise<void> {
    const waiting = this.next.get(userId);
    if (waiting) return waiting;
    const current = this.running.get(userId);
    if (!current) return this.start(userId).finished;
    const queued = Promise.all([current.finished, current.admitted.then(() => this.start(userId).finished)]).then(() => undefined);
    this.next.set(userId, queued);
    return queued;
  }

  /** Why the run could not be enqueued after a recent round admitted it; undefined when it was (or was not admitted). Once. */
  takeFailure(runId: string): unknown {
    const failure = this.failures.get(runId);
    this.failures.delete(runId);
    return failure?.error;
  }

  private start(userId: string): Round {
    this.next.delete(userId);
    const schedule = this.dependencies.schedule;
    let markAdmitted: () => void = () => undefined;
    const admitted = new Promise<void>((resolve) => (markAdmitted = resolve));
    const finished = this.dispatch(
      {
        ...this.dependencies,
        schedule: (runId, generation, start) =>
          schedule(runId, generation, start).catch((error: unknown) => {
            this.failures.set(runId, { error, at: this.dependencies.clock().getTime() });
            throw error;
          }),
      },
      { userId },
      markAdmitted,
    )
      .then(
        () => undefined,
        (error: unknown) => this.dependencies.logger.warn({ err: error, user_id: userId }, "admission failed; the sweep admits the user's runs later"),
      )
      .finally(() => {
        // A round that failed before committing lets the next one start all the same.
        markAdmitted();
        if (this.running.get(userId) === round) this.running.delete(userId);
        const forgotten = this.dependencies.clock().getTime() - FAILURE_KEPT_MS;
        for (const [runId, failure] of this.failures) if (failure.at < forgotten) this.failures.delete(runId);
      });
    const round: Round = { admitted, finished };
    this.running.set(userId, round);
    return round;
  }
}
