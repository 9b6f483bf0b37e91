import type { LiveWorker, Logger } from "@agentq/core";

export interface LiveWorkersOptions {
  /** The workers seen alive lately (core listLiveWorkers). */
  list: () => Promise<LiveWorker[]>;
  /**
   * How often the list is read again. Default 2 s: a new worker gets runs within 2 s of its first beat,
   * for one small read a second or two per API instance; a worker that died meanwhile is found out by
   * its first offer nobody hears (`unheard`), which costs that run the detour through the queue only.
   */
  refreshMs?: number;
  /** Default Math.random. */
  random?: () => number;
  logger: Logger;
}

/** The default `refreshMs`. */
export const LIVE_WORKERS_REFRESH_MS = 2000;

/** How often the list is read while no worker is known (each run then asks for a read). */
const EMPTY_REFRESH_MS = 100;

/**
 * The workers this API instance offers new runs to (queue run-offer.ts), from the presence rows the
 * workers write (core services/worker-presence.ts), read every `refreshMs` rather than on each run.
 * A pick is random, weighted by a worker's free slots as of its last beat plus one (as a decision picks:
 * approval-statements.ts), and takes one of those slots until the next read, so a burst of runs is
 * spread over the workers instead of all sent to the one that was idlest at its beat. A worker whose
 * offer nobody heard (it stopped) is not picked again until a newer beat of it is read.
 */
export class LiveWorkers {
  readonly #options: LiveWorkersOptions;
  #workers: LiveWorker[] = [];
  /** Workers whose offer nobody heard, with the beat they were last seen by then. */
  readonly #unheard = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> = Promise.resolve();
  #readingNow = false;
  #readStartedAt = 0;

  constructor(options: LiveWorkersOptions) {
    this.#options = options;
  }

  /** Reads the list now and then every `refreshMs`; settles after the first read (which never rejects). */
  start(): Promise<void> {
    this.#timer ??= setInterval(() => void this.refresh(), this.#options.refreshMs ?? LIVE_WORKERS_REFRESH_MS);
    this.#timer.unref();
    return this.refresh();
  }

  /** Reads the list again, or settles with the read in progress (the last list stays when a read fails). */
  refresh(): Promise<void> {
    // One read at a time: of two at once, the older could settle last and put back what the newer replaced.
    if (this.#readingNow) return this.#reading;
    this.#readingNow = true;
    this.#readStartedAt = Date.now();
    this.#reading = this.#options
      .list()
      .then(
        (workers) => {
          this.#workers = workers.map((worker) => ({ ...worker }));
          const listed = new Set(workers.map((worker) => worker.id));
          for (const id of this.#unheard.keys()) if (!listed.has(id)) this.#unheard.delete(id);
        },
        (error: unknown) => this.#options.logger.warn({ err: error }, "could not read the live workers; offering runs to those read before"),
      )
      .finally(() => {
        this.#readingNow = false;
      });
    return this.#reading;
  }

  /**
   * A worker to offer a run to, its free slot counted as taken; null when none is known to listen. With
   * none known, the list is read again at once (at most every EMPTY_REFRESH_MS): the first workers of a
   * deployment that has just started are offered runs a moment after their first beat, not a whole
   * `refreshMs` later.
   */
  pick(): string | null {
    const candidates = this.#listening();
    if (candidates.length === 0) {
      if (Date.now() - this.#readStartedAt >= EMPTY_REFRESH_MS) void this.refresh();
      return null;
    }
    const total = candidates.reduce((sum, worker) => sum + worker.freeSlots + 1, 0);
    let point = (this.#options.random ?? Math.random)() * total;
    let picked = candidates[candidates.length - 1]!;
    for (const worker of candidates) {
      point -= worker.freeSlots + 1;
      if (point < 0) {
        picked = worker;
        break;
      }
    }
    picked.freeSlots = Math.max(0, picked.freeSlots - 1);
    return picked.id;
  }

  /** Whether a worker is known to listen (one would be picked now), without picking it. */
  anyKnown(): boolean {
    return this.#listening().length > 0;
  }

  /** Nobody heard the offer to `workerId` (its process stopped): not picked again until a newer beat is read. */
  unheard(workerId: string): void {
    const worker = this.#workers.find((candidate) => candidate.id === workerId);
    if (worker) this.#unheard.set(workerId, worker.lastSeenAt.getTime());
  }

  /** The workers read, less those whose offer nobody heard since their last beat read. */
  #listening(): LiveWorker[] {
    return this.#workers.filter((worker) => this.#unheard.get(worker.id) !== worker.lastSeenAt.getTime());
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#reading;
  }
}
