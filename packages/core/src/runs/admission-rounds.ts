import { type DispatchDependencies, dispatchRunsOfUser } from "./admit-runs.ts";

/** How long an enqueue failure nobody asked about is kept: far longer than a request waits for its round. */
const FAILURE_KEPT_MS = 60_000;

/**
 * Admission of a user's runs (admit-runs.ts) in shared rounds, one at a time per user in this
 * process. A request made while a round runs is served by the next round, which every request made
 * meanwhile shares: a burst of runs created, taken or ended costs a few admissions, not one each.
 * Each round is a transaction holding the user's row lock; rounds keep that lock out of run
 * creation, so one user's creations do not queue behind each other on it.
 *
 * A round that could not enqueue a run it admitted (Redis down) leaves it admitted in Postgres for
 * the reconciler, and remembers the failure for `takeFailure`: the request that created the run
 * reports it, whichever round admitted it.
 */
export class AdmissionRounds {
  private readonly running = new Map<string, Promise<void>>();
  private readonly next = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, { error: unknown; at: number }>();

  /** `dispatch`: what a round does (tests give a fake). */
  constructor(
    private readonly dependencies: DispatchDependencies,
    private readonly dispatch: typeof dispatchRunsOfUser = dispatchRunsOfUser,
  ) {}

  /** Resolves once a round that started after this call has admitted what the user's limits allow (never rejects). */
  request(userId: string): Promise<void> {
    const waiting = this.next.get(userId);
    if (waiting) return waiting;
    const current = this.running.get(userId);
    if (!current) return this.start(userId);
    const queued = current.then(() => this.start(userId));
    this.next.set(userId, queued);
    return queued;
  }

  /** Why the run could not be enqueued after a recent round admitted it; undefined when it was (or was not admitted). Once. */
  takeFailure(runId: string): unknown {
    const failure = this.failures.get(runId);
    this.failures.delete(runId);
    return failure?.error;
  }

  private async start(userId: string): Promise<void> {
    this.next.delete(userId);
    const schedule = this.dependencies.schedule;
    const admission = this.dispatch(
      {
        ...this.dependencies,
        schedule: (runId, generation) =>
          schedule(runId, generation).catch((error: unknown) => {
            this.failures.set(runId, { error, at: this.dependencies.clock().getTime() });
            throw error;
          }),
      },
      { userId },
    ).then(
      () => undefined,
      (error: unknown) => this.dependencies.logger.warn({ err: error, user_id: userId }, "admission failed; the sweep admits the user's runs later"),
    );
    this.running.set(userId, admission);
    try {
      await admission;
    } finally {
      this.running.delete(userId);
      const forgotten = this.dependencies.clock().getTime() - FAILURE_KEPT_MS;
      for (const [runId, failure] of this.failures) if (failure.at < forgotten) this.failures.delete(runId);
    }
  }
}
