import type { Queue, Telemetry } from "bullmq";
import {
  activeTraceCarrier,
  buildToolEnvironment,
  createAgentqTools,
  createEmailServices,
  type EmailServices,
  sqlPoolOf,
  createToolRegistry,
  AdmissionRounds,
  dispatchRunsOfUser,
  generateId,
  listLiveWorkers,
  type Logger,
  logSandboxAvailability,
  type OwnedRun,
  type PrismaClient,
  probeProcessSandbox,
  type QueueCounts,
  resolveApprovalSecret,
  type NewRunStart,
  type ResumeHandover,
  returnHandedOverRun,
  type RunEventPublisher,
  type RunEventRecord,
  type RunGeneration,
  type SandboxAvailability,
  systemClock,
  type ToolRegistry,
  UnavailableError,
  type DecisionCommitOutcome,
  type WorkerDecisionRequest,
} from "@agentq/core";
import {
  closeOrDisconnect,
  createRedis,
  createRedisRunEventPublisher,
  type OfferToSend,
  offerRun,
  publishControl,
  quitOrDisconnect,
  RunQueue,
} from "@agentq/queue";
import type { ApiConfig } from "./config.ts";
import { LiveWorkers } from "./live-workers.ts";
import { RunSubscriptionHub } from "./realtime/run-subscription-hub.ts";
import { workerDecisions } from "./worker-decisions.ts";
import { withDeadline } from "./with-deadline.ts";

/** How long the API waits for Redis to take a job before answering 503 (the run stays queued). Default 2 s. */
const ENQUEUE_TIMEOUT_MS = 2000;

/** What the run, approval and realtime routes need besides Prisma. */
export interface RunServices {
  tools: ToolRegistry;
  /** The run queue (BullMQ), for the queue board. */
  queue: Queue;
  /** The process sandbox as probed on this host at start (GET /readyz says why when unavailable). */
  sandbox: SandboxAvailability;
  approvalSecret: string;
  hub: RunSubscriptionHub;
  /** Drafts and the SMTP side (null `sending` without SMTP_URL); the REST send delivers through it, in this process. */
  email: EmailServices;
  /**
   * Hands a run to the workers: offered to a live one (queue run-offer.ts), or enqueued when none is
   * known or it does not listen. A Redis that does not answer is a 503, never a lost run. `start`: the
   * run's context as its admission read it, for the worker to start it with no take (core runs/new-run-start.ts).
   */
  schedule(runId: string, generation: RunGeneration, start?: NewRunStart): Promise<void>;
  /**
   * Offers a run whose approval was decided to `worker` (queue run-offer.ts), handed over with its
   * lease when the decision gave it one (core runs/resume-handover.ts); schedules it when no such worker listens.
   */
  resume(runId: string, generation: RunGeneration, worker: string | null, handover: ResumeHandover | null): Promise<void>;
  /** Admits the queued runs of `runId`'s owner that their limits allow (core runs/admit-runs.ts) and hands them on. */
  admitFor(runId: string): Promise<void>;
  /** Admits a created run's user in a shared round; rejects when the queue could not take the run (core RunAfterCommit). */
  admitCreated(userId: string, runId: string): Promise<void>;
  /**
   * Leaves the decision of a run's last pending approval to the worker the run is handed to, whose first
   * commit of the run records it (worker-decisions.ts; core DecideApprovalDependencies.commitOnWorker).
   */
  commitOnWorker(request: WorkerDecisionRequest): Promise<DecisionCommitOutcome>;
  /** Publishes committed events to live subscribers, on the channel of the run's owner (best effort). */
  publish(run: OwnedRun, events: RunEventRecord[]): void;
  /** Asks whichever worker runs it to stop now. */
  requestCancel(runId: string): void;
  /** Asks the worker that owns a background job to stop it (the flag in Postgres is the fallback). */
  requestJobStop(jobId: string): void;
  /** The run queue's jobs by state (GET /api/services); throws when Redis does not answer in time. */
  queueCounts(): Promise<QueueCounts>;
  close(): Promise<void>;
}

export interface CreateRunServicesInput {
  config: ApiConfig;
  prisma: PrismaClient;
  logger: Logger;
  /** BullMQ's telemetry when the process traces (@agentq/tracing): run jobs carry the request's trace. Default none. */
  queueTelemetry?: Telemetry;
}

export async function createRunServices(input: CreateRunServicesInput): Promise<RunServices> {
  const { config, prisma, logger } = input;
  // Fail fast: an enqueue while Redis is down must not hang the request.
  const queueConnection = createRedis({ url: config.redisUrl, maxRetriesPerRequest: 1, connectionName: "agentq-api-queue" });
  const subscriber = createRedis({ url: config.redisUrl, maxRetriesPerRequest: null, connectionName: "agentq-api-subscriber", shardedSubscriber: true });
  for (const connection of [queueConnection, subscriber]) connection.on("error", () => undefined);
  const runQueue = new RunQueue({
    connection: queueConnection,
    prefix: config.queuePrefix,
    telemetry: input.queueTelemetry,
  });
  runQueue.queue.on("error", () => undefined);
  const publisher: RunEventPublisher = createRedisRunEventPublisher(queueConnection, config.queuePrefix);
  const approvalSecret = await resolveApprovalSecret(prisma, config.approvalSecret);
  // The API lists tools (GET /api/tools) as a worker on this host would offer them: without a sandbox, no process tools.
  const sandbox = await probeProcessSandbox({ mode: config.processSandbox, searchPath: process.env.PATH ?? "/usr/bin:/bin" });
  logSandboxAvailability(sandbox, logger);
  const email = createEmailServices({ config: config.email, sql: sqlPoolOf(prisma) });
  const tools = createToolRegistry(
    createAgentqTools({
      email,
      toolEnvironment: buildToolEnvironment(process.env, config.toolEnvAllow),
      searxngUrl: config.searxngUrl,
      sandbox: sandbox.available ? sandbox.sandbox : null,
      personal: { runner: sqlPoolOf(prisma), generateId },
    }),
  );
  const hub = new RunSubscriptionHub(subscriber, config.queuePrefix);
  const liveWorkers = new LiveWorkers({
    list: () => listLiveWorkers(sqlPoolOf(prisma), systemClock()),
    refreshMs: config.liveWorkersRefreshMs,
    logger,
  });
  await liveWorkers.start();

  /**
   * Offers the run to `worker`: true when its process heard the offer, false when no process listens
   * on its channel (it stopped: not picked again until a newer beat of it is read). An offer that fails
   * or is not answered in time costs nothing but the detour through the queue (one that lands late as
   * well leaves the job to find the run held: it waits out the lease and then finds the run moved on);
   * it says nothing of the worker. The request's trace goes on in the worker's execution, as a job's
   * would (BullMQ's telemetry).
   */
  const offer = async (worker: string, run: Omit<OfferToSend, "trace">): Promise<boolean | "unanswered" | "failed"> => {
    const offered = await withDeadline(
      offerRun(queueConnection, config.queuePrefix, worker, { ...run, trace: activeTraceCarrier() }),
      ENQUEUE_TIMEOUT_MS,
      (): "unanswered" => "unanswered",
    ).catch((error: unknown): "failed" => {
      logger.warn({ err: error, run_id: run.runId, worker_id: worker }, "could not offer a run to a worker; enqueueing it");
      return "failed";
    });
    if (offered === false) liveWorkers.unheard(worker);
    return offered;
  };

  const schedule = (runId: string, generation: RunGeneration, start?: NewRunStart) => services.schedule(runId, generation, start);
  // The admitted runs' contexts are read only when a worker is known to offer them to.
  const admission = { prisma, clock: systemClock, logger, schedule, startsWithContext: () => liveWorkers.anyKnown() };
  const admissions = new AdmissionRounds(admission);
  const commitOnWorker = workerDecisions({
    publisher: queueConnection,
    subscriber,
    prefix: config.queuePrefix,
    publishWaitMs: ENQUEUE_TIMEOUT_MS,
    replyWaitMs: config.decisionReplyWaitMs,
    unheard: (worker) => liveWorkers.unheard(worker),
    logger,
  });
  const services: RunServices = {
    commitOnWorker,
    tools,
    queue: runQueue.queue,
    sandbox,
    approvalSecret,
    hub,
    email,
    async schedule(runId, generation, start) {
      const worker = liveWorkers.pick();
      if (worker !== null && (await offer(worker, { runId, generation, ...(start ? { start } : {}) })) === true) return;
      try {
        await withDeadline(runQueue.schedule(runId, generation), ENQUEUE_TIMEOUT_MS, () => {
          throw new Error("timed out");
        });
      } catch (error) {
        logger.warn({ err: error, run_id: runId }, "enqueue failed; the run stays queued for the reconciler");
        throw new UnavailableError("the queue (Redis) is unreachable; the run is saved and will start when it is back", { run_id: runId }, { cause: error });
      }
    },
    async resume(runId, generation, worker, handover) {
      if (worker !== null) {
        const offered = await offer(worker, { runId, generation, ...(handover ? { handover } : {}) });
        if (offered === true) return;
        if (handover) {
          // Leased to that worker by the decision: an offer that may still arrive is left to it (if it
          // never does, the lease runs out and the reconciler hands the run on); one that nobody heard
          // is unleased first, for the next worker's take to find it free (nothing to do if it moved on).
          if (offered === "unanswered") return;
          const returned = await returnHandedOverRun(prisma, { runId, generation });
          if (returned) await services.schedule(runId, returned);
          return;
        }
      }
      await services.schedule(runId, generation);
    },
    queueCounts() {
      return withDeadline(runQueue.jobCounts(), ENQUEUE_TIMEOUT_MS, () => {
        throw new Error(`no answer within ${ENQUEUE_TIMEOUT_MS} ms`);
      });
    },
    async admitFor(runId) {
      await dispatchRunsOfUser(admission, { runId });
    },
    async admitCreated(userId, runId) {
      await admissions.request(userId);
      const failure = admissions.takeFailure(runId);
      if (failure !== undefined) throw failure;
    },
    publish(run, events) {
      if (events.length > 0) publisher.publishEvents(run, events).catch(() => undefined);
    },
    requestCancel(runId) {
      publishControl(queueConnection, config.queuePrefix, { type: "cancel", run_id: runId }).catch(() => undefined);
    },
    requestJobStop(jobId) {
      publishControl(queueConnection, config.queuePrefix, { type: "job.stop", job_id: jobId }).catch(() => undefined);
    },
    async close() {
      const closing = { logger };
      hub.close();
      await liveWorkers.close();
      await quitOrDisconnect(subscriber, closing);
      await closeOrDisconnect({ name: "run queue", close: () => runQueue.close() }, closing);
      await quitOrDisconnect(queueConnection, closing);
    },
  };
  return services;
}
