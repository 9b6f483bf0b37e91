import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { DelayedError, Worker, type Job, type Telemetry } from "bullmq";
import type { Logger } from "pino";
import {
  acquireRun,
  type AcquireOutcome,
  buildToolEnvironment,
  composeToolCatalog,
  createAgentqTools,
  createEmailServices,
  createPrismaClient,
  createSqlPool,
  createRunCommitBatcher,
  createToolRegistry,
  AdmissionRounds,
  dispatchRunsOfUser,
  documentStoreOf,
  executeRun,
  failRunWithoutLease,
  generateId,
  JobSupervisor,
  logSandboxAvailability,
  McpConnections,
  type ModelResolver,
  type PrismaClient,
  probeProcessSandbox,
  type ProcessSandbox,
  releaseLease,
  renewLeases,
  resolveApprovalSecret,
  sqlPoolOf,
  RunAbort,
  recordWorkerPresence,
  removeWorkerPresence,
  type RunLease,
  type RunLoopDependencies,
  type RunGeneration,
  type NewRunStart,
  type RunOutcome,
  type SandboxAvailability,
  systemClock,
  WORKER_PRESENCE_INTERVAL_MS,
} from "@agentq/core";
import {
  CLOSE_TIMEOUT_MS,
  closeOrDisconnect,
  closeWorkerOrDisconnect,
  controlChannel,
  createRedis,
  logEvictionPolicy,
  onChannelMessage,
  publishControl,
  createRedisRunEventPublisher,
  parseJob,
  parseDecisionOffer,
  parseRunOffer,
  replyToDecision,
  quitOrDisconnect,
  RUN_QUEUE_NAME,
  RunQueue,
  setWorkerConcurrency,
  subscribeChannel,
  type ControlMessage,
  workerChannel,
  workerDecisionChannel,
  workerStartChannel,
} from "@agentq/queue";
import type { WorkerConfig } from "./config.ts";
import { createModelResolver } from "./create-model-resolver.ts";
import { offerHandlers } from "./offer-handlers.ts";
import { OfferedRuns } from "./offered-runs.ts";
import { startSweeps } from "./start-sweeps.ts";
import { startWebhookDispatcher } from "./webhook-dispatcher.ts";

export interface StartRunWorkerOptions {
  config: WorkerConfig;
  logger: Logger;
  /** The process environment `run_command` inherits from, through TOOL_ENV_ALLOW. */
  processEnvironment: Readonly<Record<string, string | undefined>>;
  /** Replaces the provider clients (tests use the in-process scripted model). */
  models?: ModelResolver;
  /**
   * The sandbox commands and jobs run in; null: none (process tools are not offered). Default: the
   * one PROCESS_SANDBOX names, probed at start (bubblewrap unless `off`).
   */
  sandbox?: ProcessSandbox | null;
  /**
   * BullMQ's telemetry when the process traces (main.ts, @agentq/tracing): a job's execution continues
   * the trace of the request that enqueued it. Default none.
   */
  queueTelemetry?: Telemetry;
}

export interface RunWorker {
  workerId: string;
  /** Graceful stop: no new runs; runs in progress reach a committed point and are handed back. */
  close(): Promise<void>;
  /** Runs executing in this process now. */
  activeRunIds(): string[];
  /** Takes no new runs (those in progress go on, and so do its jobs) until closed. */
  pause(): Promise<void>;
}

interface ActiveRun {
  lease: RunLease;
  controller: AbortController;
  /** False until the execution's first commit takes the lease (a new run started with no take: core runs/new-run-start.ts). */
  leased: boolean;
}

/**
 * A worker process's engine: pulls run jobs, takes each run's lease, executes it with the core loop
 * while renewing the lease, reacts to cancels, and sweeps for runs that lost their job.
 */
export async function startRunWorker(options: StartRunWorkerOptions): Promise<RunWorker> {
  const { config, logger } = options;
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const prisma: PrismaClient = createPrismaClient({ databaseUrl: config.databaseUrl, poolSize: Math.min(20, Math.max(5, config.concurrency)) });
  const commands = createRedis({ url: config.redisUrl, maxRetriesPerRequest: null, connectionName: `agentq-worker-${workerId}` });
  const blocking = createRedis({ url: config.redisUrl, maxRetriesPerRequest: null, connectionName: `agentq-worker-jobs-${workerId}` });
  const subscriber = createRedis({
    url: config.redisUrl,
    maxRetriesPerRequest: null,
    connectionName: `agentq-worker-control-${workerId}`,
    shardedSubscriber: true,
  });
  // Every run publishes its events after each commit: one write per tick for all of them.
  const eventConnection = createRedis({
    url: config.redisUrl,
    maxRetriesPerRequest: null,
    connectionName: `agentq-worker-events-${workerId}`,
    autoPipelining: true,
  });
  for (const connection of [commands, blocking, subscriber, eventConnection])
    connection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));

  // The tokenizer's ranks load at the first count (~0.2 s, ~18 MB): a worker whose provider reports
  // usage and whose conversations stay under the byte bound never needs them.
  const approvalSecret = await resolveApprovalSecret(prisma, config.approvalSecret);
  const publisher = createRedisRunEventPublisher(eventConnection, config.queuePrefix);
  // No telemetry on this producer: what a worker enqueues (a chat's next run, runs admission let
  // through, the reconciler's) belongs to no request, and each run's execution starts a trace of its
  // own rather than nesting under whichever run's execution happened to hand it on.
  const runQueue = new RunQueue({ connection: commands, prefix: config.queuePrefix });
  const toolEnvironment = buildToolEnvironment(options.processEnvironment, config.toolEnvAllow);
  const sandbox = await resolveSandbox(options, logger);
  const jobs = new JobSupervisor({
    prisma,
    notifyStop: (jobId) => {
      publishControl(commands, config.queuePrefix, { type: "job.stop", job_id: jobId }).catch((error: unknown) =>
        logger.warn({ err: error, job_id: jobId }, "could not publish a job's stop; its owner reads the flag at its next lease renewal"),
      );
    },
    workerId,
    workspacesRoot: config.workspacesRoot,
    sandbox,
    environment: toolEnvironment,
    leaseMs: config.leaseMs,
    logger,
  });
  const administration = {
    prisma,
    deploymentSecret: approvalSecret,
    queueCounts: () => runQueue.jobCounts(),
    sandbox: sandbox === null ? { available: false as const, reason: "the process sandbox is not available on this worker" } : { available: true as const },
    now: () => systemClock(),
  };
  const email = createEmailServices({ config: config.email, sql: sqlPoolOf(prisma) });
  const registry = createToolRegistry(
    createAgentqTools({
      toolEnvironment,
      searxngUrl: config.searxngUrl,
      sandbox,
      jobs,
      administration,
      email,
      documents: documentStoreOf(prisma),
      personal: { runner: sqlPoolOf(prisma), generateId },
    }),
  );
  // The registered MCP servers' tools join the fixed ones while their server is connected.
  const mcp = new McpConnections({ prisma, deploymentSecret: approvalSecret, sandbox, hiddenPaths: [config.workspacesRoot, ...config.fileRoots], logger });
  await mcp.start();
  const tools = composeToolCatalog(registry, () => mcp.tools());
  // What this worker admits (the next runs of a user whose run ended or parked here, a chat's next run)
  // it offers itself first, as the API offers a new run to a live worker: taken here while a slot is
  // free, and enqueued otherwise (offered-runs.ts), with no Redis on the way. With 50 runs in flight,
  // half of W1's runs were admitted here, by the round of a run's end, before their creation's own round
  // in the API. A run's end frees its slot before that round's statement returns, and BullMQ's fetch
  // for it (one Redis round trip) usually takes a job waiting in the queue first, so a user's next run
  // seldom overtakes other users' waiting there: FAIR's other user waited 622, 409 and 431 ms (p50)
  // against 658, 442 and 510 with these runs enqueued, alternating. (No await lies between here and
  // offeredRuns below: nothing is admitted before it exists.)
  const enqueue = (runId: string, generation: RunGeneration) => runQueue.schedule(runId, generation);
  // As an offer would carry the start: its context parsed (queue run-offer.ts).
  const schedule = async (runId: string, generation: RunGeneration, start?: NewRunStart) =>
    offeredRuns.receive({ runId, generation, ...(start ? { start: { context: JSON.parse(start.context), admissionAwaited: start.admissionAwaited } } : {}) });
  // The runs it admits start here with the context their admission read (most rounds follow a run's
  // end here, whose slot they take); a worker with no slot by then enqueues them, to be taken as before.
  const admission = { prisma, clock: systemClock, logger, schedule, startsWithContext: () => true };
  // Admission (core runs/admit-runs.ts): a failure leaves the runs queued for the sweep below.
  const admit = (owner: { userId: string } | { runId: string }) =>
    dispatchRunsOfUser(admission, owner).catch((error: unknown) => {
      logger.warn({ err: error, ...owner }, "admission failed; the sweep admits the user's runs later");
      return [];
    });
  // Shared rounds: a burst of runs taken or ended costs a few admissions, not one each.
  const admissions = new AdmissionRounds(admission);
  const requestAdmission = (userId: string) => void admissions.request(userId);
  const dependencies: RunLoopDependencies = {
    prisma,
    publisher,
    models: options.models ?? createModelResolver(config),
    tools,
    scheduler: { schedule, admitFor: async (runId) => void (await admit({ runId })) },
    clock: systemClock,
    generateId,
    logger,
    approvalSecret,
    commits: createRunCommitBatcher({ runner: sqlPoolOf(prisma), clock: systemClock }),
  };

  const active = new Map<string, ActiveRun>();
  let shuttingDown = false;

  // One statement renews every lease this worker holds, on its own small pool: renewals never wait
  // behind run work, so an overloaded but alive worker does not lose its runs to spurious take-overs.
  // A pool without a Prisma client: these are hand-written statements, and a second client would build
  // a second copy of Prisma's data model graph (store/create-prisma-client.ts, createSqlPool).
  const leasePool = createSqlPool({ databaseUrl: config.databaseUrl, poolSize: 2 });
  let renewing: Promise<void> = Promise.resolve();
  const renewAll = () => {
    // Not the runs whose first commit has yet to take their lease: there is nothing of theirs to renew.
    const held = [...active.values()].filter((run) => run.leased);
    // With them, the handed-over runs waiting for a slot (offeredRuns, below: no await lies between
    // here and there, so neither the heartbeat nor a BullMQ job can reach it before it exists).
    const waiting = offeredRuns.waitingLeases().map((lease) => ({ ...lease, owner: workerId }));
    if (held.length === 0 && waiting.length === 0) return;
    renewing = renewLeases(leasePool, [...held.map((run) => run.lease), ...waiting], config.leaseMs)
      .then((renewed) => {
        for (const run of held) {
          if (active.get(run.lease.runId) !== run) continue; // ended meanwhile
          const state = renewed.get(run.lease.runId);
          if (!state) run.controller.abort(new RunAbort("lease_lost"));
          else if (state.cancelRequested) run.controller.abort(new RunAbort("cancel"));
        }
        // A waiting run whose lease is gone was taken from this worker (a cancel): it is not started here
        // (one that started meanwhile no longer waits, and its first commit is fenced by the lease anyway).
        offeredRuns.dropLost(waiting.filter((lease) => !renewed.has(lease.runId)));
      })
      .catch((error: unknown) => logger.warn({ err: error, runs: held.length + waiting.length }, "lease renewal failed"));
  };
  const heartbeat = setInterval(renewAll, Math.max(200, Math.floor(config.leaseMs / 3)));

  // Presence for GET /api/services: a row per live worker, refreshed every few seconds.
  const startedAt = new Date();
  const recordPresence = () =>
    recordWorkerPresence(leasePool, {
      id: workerId,
      host: hostname(),
      startedAt,
      concurrency: config.concurrency,
      activeRuns: active.size,
      leaseMs: config.leaseMs,
    }).catch((error: unknown) => logger.warn({ err: error }, "could not record this worker's presence"));

  /** Executes a run this worker has just taken, holding its slot (`active`) until the execution ends. */
  const executeTaken = async (acquired: Extract<AcquireOutcome, { kind: "acquired" }>): Promise<RunOutcome> => {
    const { lease, context } = acquired;
    const controller = new AbortController();
    const leasedByFirstCommit = acquired.leaseOnFirstCommit === true;
    const run: ActiveRun = { lease, controller, leased: !leasedByFirstCommit };
    active.set(lease.runId, run);
    // One fewer of the user's admitted runs waits in the queue: admit their next one (runs/admit-runs.ts),
    // if they have one. A run created after the take's (or admission's) snapshot is admitted by its
    // creation's own round, or, if that round found the queue full, by the round after the next start or end.
    const started = () => {
      run.leased = true;
      if (acquired.admissionAwaited) requestAdmission(context.run.userId);
    };
    // Started with no take, the run waits for admission until its first commit takes the lease.
    const leaseOnFirstCommit = leasedByFirstCommit ? { leaseSeconds: config.leaseMs / 1000, onLeased: started } : undefined;
    if (!leasedByFirstCommit) started();
    try {
      const outcome = await executeRun(dependencies, {
        lease,
        context,
        signal: controller.signal,
        shouldHandBack: () => shuttingDown,
        ...(leaseOnFirstCommit ? { leaseOnFirstCommit } : {}),
        ...(acquired.decisionOnFirstCommit ? { decisionOnFirstCommit: acquired.decisionOnFirstCommit } : {}),
      });
      logger.info({ run_id: lease.runId, outcome: outcome.kind }, "run execution ended");
      // The run ended or parked: it no longer counts against its user's max_active_runs, and one
      // fewer of their admitted runs waits. Not awaited: the slot is free for the next job now.
      if (outcome.kind !== "handed_back") requestAdmission(context.run.userId);
      return outcome;
    } finally {
      // Only its own entry: a later execution of the run may have started (offered-runs.ts chains them).
      if (active.get(lease.runId) === run) active.delete(lease.runId);
      // A renewal in flight now must not outlive the execution (its owner check also guards this).
      await renewing;
    }
  };

  const processJob = async (job: Job, token?: string): Promise<RunOutcome["kind"] | "skipped"> => {
    const { payload } = parseJob<"run.execute">(job.name, job.data);
    const runId = payload.run_id;
    const acquired = await acquireRun(prisma, { runId, owner: workerId, leaseMs: config.leaseMs });
    if (acquired.kind === "lease_held") {
      // Another worker holds the run: look again once its lease may have expired.
      await job.moveToDelayed(acquired.retryAt.getTime() + 250, token);
      throw new DelayedError();
    }
    if (acquired.kind !== "acquired") return "skipped";

    const lease = acquired.lease;
    try {
      const outcome = await executeTaken(acquired);
      if (outcome.kind === "handed_back") {
        // Back to the queue without counting a failed attempt: another worker continues at once.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      return outcome.kind;
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      // The loop itself failed (a bug, Postgres gone): let the retry start at once rather than wait
      // out the lease, and after the job's last attempt fail the run instead of retrying it forever.
      logger.error({ err: error, run_id: runId, attempt: job.attemptsMade + 1 }, "run execution failed");
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        // Failed while this worker still holds the run: no other worker can take it in between.
        await failRunWithoutLease(
          dependencies,
          acquired.context.run,
          {
            code: "internal_error",
            message: `the run could not be executed (${job.attemptsMade + 1} attempts); the last error was logged by worker ${workerId}`,
          },
          { lease },
        ).catch((failError: unknown) => logger.error({ err: failError, run_id: runId }, "could not fail the run; the reconciler will retry it"));
      }
      await releaseLease(prisma, lease).catch(() => undefined);
      throw error;
    }
  };

  // Jobs BullMQ handed to processJob that have not returned: with the offered runs below, this
  // worker's slots in use.
  let jobsInProgress = 0;
  const processCountedJob = async (job: Job, token?: string) => {
    jobsInProgress += 1;
    try {
      return await processJob(job, token);
    } finally {
      jobsInProgress -= 1;
      // Before BullMQ looks for its next job: a handed-over run waiting for a slot takes this one.
      offeredRuns.slotFreed();
    }
  };
  const worker = new Worker(RUN_QUEUE_NAME, processCountedJob, {
    connection: blocking,
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    lockDuration: config.jobLockMs,
    // A worker that died between pulling a job and taking the run's lease leaves an active job that
    // blocks its generation's id: find it within one lock period, not BullMQ's default 30 s after.
    stalledInterval: config.jobLockMs,
    // The run's lease in Postgres, not the job lock, guards against double execution; a stalled job
    // only means "look again", so it must not be failed after one stall.
    maxStalledCount: 100,
    telemetry: options.queueTelemetry,
  });
  worker.on("failed", (job, error) => logger.warn({ err: error, job_id: job?.id }, "run job failed"));
  worker.on("error", (error) => logger.warn({ err: error }, "worker error"));

  // A decided approval's run offered to this worker (offered-runs.ts): taken here, or sent to the queue.
  const offeredRuns = new OfferedRuns({
    concurrency: config.concurrency,
    jobsInProgress: () => jobsInProgress,
    accepting: () => !shuttingDown && !worker.isPaused(),
    ...offerHandlers({
      prisma,
      workerId,
      leaseMs: config.leaseMs,
      schedule: enqueue,
      executeTaken,
      replyToDecision: (decision, outcome) => replyToDecision(commands, decision.replyTo, decision.requestId, outcome),
      logger,
    }),
    setJobConcurrency: (slots) => setWorkerConcurrency(worker, slots),
    logger,
  });
  const offers = workerChannel(config.queuePrefix, workerId);
  // New runs offered with their context (queue run-offer.ts), to start with no take.
  const startOffers = workerStartChannel(config.queuePrefix, workerId);
  // Decided approvals whose commit the API leaves to this worker's first commit of the run (queue run-decision-offer.ts).
  const decisionOffers = workerDecisionChannel(config.queuePrefix, workerId);
  await subscribeChannel(subscriber, offers);
  await subscribeChannel(subscriber, startOffers);
  await subscribeChannel(subscriber, decisionOffers);
  await subscribeChannel(subscriber, controlChannel(config.queuePrefix));
  // Seen (and so offered runs) only once its channel is heard: an offer before that would find nobody
  // listening, and the API would not offer this worker another run until its next beat.
  void recordPresence();
  const presence = setInterval(recordPresence, WORKER_PRESENCE_INTERVAL_MS);
  onChannelMessage(subscriber, (channel, text) => {
    if (channel === offers || channel === startOffers || channel === decisionOffers) {
      const offer = channel === decisionOffers ? parseDecisionOffer(text) : parseRunOffer(text);
      if (offer) offeredRuns.receive(offer);
      return;
    }
    let message: ControlMessage;
    try {
      message = JSON.parse(text) as ControlMessage;
    } catch {
      return;
    }
    if (message.type === "cancel") active.get(message.run_id)?.controller.abort(new RunAbort("cancel"));
    else if (message.type === "job.stop") jobs.handleStopRequest(message.job_id);
  });

  const webhooks = startWebhookDispatcher({
    prisma,
    connection: commands,
    redisUrl: config.redisUrl,
    queuePrefix: config.queuePrefix,
    workerId,
    deploymentSecret: approvalSecret,
    concurrency: config.webhookConcurrency,
    requestTimeoutMs: config.webhookTimeoutMs,
    retryDelaysMs: config.webhookRetryDelaysMs,
    lostAfterMs: config.webhookLostAfterMs,
    logger,
  });

  const stopSweeps = startSweeps({
    prisma,
    runQueue,
    admitUser: (userId) => admit({ userId }),
    intervalMs: config.reconcileIntervalMs,
    logger,
  });

  logger.info({ worker_id: workerId, concurrency: config.concurrency, queue_prefix: config.queuePrefix }, "worker started");
  void logEvictionPolicy(commands, logger);

  return {
    workerId,
    activeRunIds: () => [...active.keys()],
    pause: () => {
      // Paused, the worker takes no run: those waiting for a slot go to the queue for other workers.
      void offeredRuns.handBackWaiting();
      return worker.pause(true);
    },
    async close() {
      if (shuttingDown) return;
      shuttingDown = true;
      const stoppingAt = Date.now();
      // Handed-over runs still waiting for a slot go to the queue now, for other workers to take.
      const handingBack = offeredRuns.handBackWaiting();
      stopSweeps();
      clearInterval(presence);
      const deadline = setTimeout(() => {
        for (const run of active.values()) run.controller.abort(new RunAbort("shutdown"));
      }, config.shutdownGraceMs);
      // Each Redis step is bounded (queue close-or-disconnect.ts): a stop during a failover must not hang.
      const closing = { logger };
      try {
        // BullMQ waits for the runs in progress: they get the grace period (then are aborted, above).
        await closeWorkerOrDisconnect(worker, "run jobs (BullMQ worker)", { logger, timeoutMs: config.shutdownGraceMs + CLOSE_TIMEOUT_MS });
        // Offered runs got the same grace (the deadline above aborts them too); handed back, they are enqueued.
        await offeredRuns.settled();
        await handingBack;
        await webhooks.close();
        await jobs.close();
        await mcp.close();
      } finally {
        clearTimeout(deadline);
        await quitOrDisconnect(subscriber, closing);
        await closeOrDisconnect({ name: "run queue", close: () => runQueue.close() }, closing);
        await Promise.all([commands, blocking, eventConnection].map((connection) => quitOrDisconnect(connection, closing)));
        clearInterval(heartbeat);
        await renewing;
        await removeWorkerPresence(leasePool, workerId).catch(() => undefined);
        await leasePool.end();
        await prisma.$disconnect();
      }
      logger.info({ worker_id: workerId, elapsed_ms: Date.now() - stoppingAt }, "worker stopped");
    },
  };
}

/** The sandbox given, or the one PROCESS_SANDBOX names, probed once; says at start what commands will run in. */
async function resolveSandbox(options: StartRunWorkerOptions, logger: Logger): Promise<ProcessSandbox | null> {
  const availability: SandboxAvailability =
    options.sandbox === undefined
      ? await probeProcessSandbox({ mode: options.config.processSandbox, searchPath: options.processEnvironment.PATH ?? "/usr/bin:/bin" })
      : options.sandbox === null
        ? { available: false, reason: "no sandbox was given to this worker" }
        : { available: true, sandbox: options.sandbox };
  logSandboxAvailability(availability, logger);
  return availability.available ? availability.sandbox : null;
}
