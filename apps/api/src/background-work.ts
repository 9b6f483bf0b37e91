/**
 * Work a request started that outlives its answer (an email's SMTP delivery after the 202). Shutdown
 * waits for it, so a SIGTERM never leaves a send in doubt that was about to finish.
 */
export class BackgroundWork {
  readonly #running = new Set<Promise<unknown>>();

  /** Tracks `work` until it settles; its result and errors stay the caller's. */
  track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.finally(() => this.#running.delete(tracked));
    this.#running.add(tracked);
    tracked.catch(() => undefined);
    return tracked;
  }

  get size(): number {
    return this.#running.size;
  }

  /** Resolves once everything tracked has settled (true), or after `timeoutMs` with some still running (false). */
  async drain(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      while (this.#running.size > 0) {
        const settled = await Promise.race([Promise.allSettled([...this.#running]).then(() => true as const), timedOut]);
        if (!settled) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }
}
