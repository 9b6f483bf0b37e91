import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { selectActivityCounts, selectWorkersSeenSince } from "../store/statements/worker-statements.ts";

/** How often a worker records that it is alive (workers/presence). Default 10 s. */
export const WORKER_PRESENCE_INTERVAL_MS = 10_000;

/** A worker not seen for this long is not listed (nor offered runs): three missed beats. */
export const WORKER_PRESENCE_TIMEOUT_MS = 3 * WORKER_PRESENCE_INTERVAL_MS;

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** GET /api/services (API.md "Administration, MCP and services"). */
export interface ServiceStatus {
  workers: { id: string; host: string; started_at: string; last_seen_at: string; active_runs: number; concurrency: number }[];
  /** Null counts (and `error`) when Redis does not answer: the rest comes from Postgres and is still shown. */
  queue: { waiting: number | null; active: number | null; delayed: number | null; failed: number | null; error?: string };
  runs: { queued: number; running: number; awaiting_approval: number };
  jobs: { running: number };
  sandbox: { available: boolean; reason: string | null };
}

export interface LoadServiceStatusInput {
  prisma: PrismaClient;
  /** The run queue's job counts; throws when Redis does not answer. */
  queueCounts: () => Promise<QueueCounts>;
  sandbox: { available: true } | { available: false; reason: string };
  now: Date;
}

/** What the deployment is doing: live workers, the queue, runs by status, jobs, the sandbox. */
export async function loadServiceStatus(input: LoadServiceStatusInput): Promise<ServiceStatus> {
  const runner = sqlPoolOf(input.prisma);
  const [workers, counts, queue] = await Promise.all([
    selectWorkersSeenSince(runner, new Date(input.now.getTime() - WORKER_PRESENCE_TIMEOUT_MS)),
    selectActivityCounts(runner),
    input.queueCounts().then(
      (queueCounts): ServiceStatus["queue"] => queueCounts,
      (error: unknown): ServiceStatus["queue"] => ({
        waiting: null,
        active: null,
        delayed: null,
        failed: null,
        error: `Redis did not answer: ${error instanceof Error ? error.message : String(error)}`,
      }),
    ),
  ]);
  return {
    workers: workers.map((worker) => ({
      id: worker.id,
      host: worker.host,
      started_at: worker.started_at.toISOString(),
      last_seen_at: worker.last_seen_at.toISOString(),
      active_runs: worker.active_runs,
      concurrency: worker.concurrency,
    })),
    queue,
    runs: { queued: counts.queued, running: counts.running, awaiting_approval: counts.awaiting_approval },
    jobs: { running: counts.jobs_running },
    sandbox: input.sandbox.available ? { available: true, reason: null } : { available: false, reason: input.sandbox.reason },
  };
}
