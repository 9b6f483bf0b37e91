import path from "node:path";
import type { Redis } from "ioredis";
import { generateId } from "@agentq/core/ids";
import { JobOutputWriter, readJobOutput } from "@agentq/core/jobs/job-output";
import { JobStatus } from "@agentq/core/jobs/job-status";
import { findOwnJob, finishJob, insertRunningJob, listOwnJobs, renewJobLeases, requestJobStop } from "@agentq/core/jobs/job-store";
import type { JobRecord } from "@agentq/core/jobs/job-view";
import type { LoopLogger } from "@agentq/core/runs/run-loop-dependencies";
import { loadSettings } from "@agentq/core/settings/agent-settings";
import type { PrismaClient } from "@agentq/core/store/create-prisma-client";
import type { JobControl } from "@agentq/core/tools/process/job-tools";
import type { ProcessSandbox, SandboxedProcess } from "@agentq/core/tools/process/sandbox/process-sandbox";
import { publishControl } from "@agentq/queue";

export interface JobSupervisorOptions {
  prisma: PrismaClient;
  /** For publishing stop requests to the owner (any worker). */
  redis: Redis;
  queuePrefix: string;
  workerId: string;
  /** Output goes to WORKSPACES_ROOT/.jobs/<job id>: shared storage, outside every workspace. */
  workspacesRoot: string;
  /** The sandbox jobs run in; null when it could not start (jobs are refused, as run_command is). */
  sandbox: ProcessSandbox | null;
  /** The TOOL_ENV_ALLOW variables a job gets (nothing else of the worker's environment). */
  environment: Record<string, string>;
  /** How long a job's lease lasts without renewal; its owner renews it every third of that. */
  leaseMs: number;
  /** Between SIGTERM and SIGKILL of a job's process group. Default 2 000 ms. */
  killGraceMs?: number;
  logger: LoopLogger;
}

interface RunningJob {
  child: SandboxedProcess["child"];
  output: JobOutputWriter;
  /** Why the worker is ending it, when it is (otherwise it exited on its own). */
  ending?: "stopped" | "timed_out" | "lost";
  runtimeTimer: NodeJS.Timeout;
  ended: Promise<void>;
}

/**
 * Runs background jobs in the sandbox and owns them for their whole life: their process group,
 * output, runtime limit, lease renewal and stop requests (API.md "Process tools, the sandbox and
 * background jobs"). A job's state is in Postgres; its output is on shared storage, so any worker or
 * API instance can read it. A worker that dies takes its jobs with it (the sandbox dies with its
 * parent) and the reconciler marks them `lost`.
 */
export class JobSupervisor implements JobControl {
  readonly #options: JobSupervisorOptions;
  readonly #running = new Map<string, RunningJob>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(options: JobSupervisorOptions) {
    this.#options = options;
    this.#heartbeat = setInterval(() => void this.renewLeases(), Math.max(200, Math.floor(options.leaseMs / 3)));
  }

  async start(input: { userId: string; runId: string; workspace: { id: string; rootPath: string }; command: string; name: string }) {
    const { prisma, sandbox } = this.#options;
    if (sandbox === null) return { ok: false as const, error: "background jobs are not available: the process sandbox could not start on this worker" };
    const settings = await loadSettings(prisma);
    const id = generateId("job");
    const outputPath = path.join(this.#options.workspacesRoot, ".jobs", id);
    const record = await insertRunningJob(prisma, {
      id,
      userId: input.userId,
      workspaceId: input.workspace.id,
      runId: input.runId,
      name: input.name,
      command: input.command,
      ownerWorker: this.#options.workerId,
      outputPath,
      leaseMs: this.#options.leaseMs,
      maxRunning: settings.job_max_running,
    });
    if (record === undefined) {
      return {
        ok: false as const,
        error: `you already have ${settings.job_max_running} running job(s), the most allowed (job_max_running); stop one with stop_job or wait for one to end`,
      };
    }
    const output = await JobOutputWriter.create(outputPath, settings.job_output_limit_bytes);
    let started: SandboxedProcess;
    try {
      started = await sandbox.spawn({
        command: input.command,
        workspacePath: input.workspace.rootPath,
        environment: this.#options.environment,
        network: settings.process_network,
      });
    } catch (error) {
      await output.close();
      await finishJob(prisma, id, { status: JobStatus.exited, exitCode: null });
      return { ok: false as const, error: `the job could not be started: ${error instanceof Error ? error.message : String(error)}` };
    }
    const child = started.child;
    child.stdout.on("data", (chunk: Buffer) => output.append(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.append(chunk));
    const streamsClosed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
      child.once("exit", (code, signal) => {
        // Whatever the job left in its process group ends with it; then its last output is read.
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
        void Promise.race([streamsClosed, delay(2_000)]).then(() => resolve({ code, signal }));
      });
    });
    const job: RunningJob = {
      child,
      output,
      runtimeTimer: setTimeout(() => this.#end(id, "timed_out"), settings.job_max_runtime_seconds * 1000),
      ended: Promise.resolve(),
    };
    job.runtimeTimer.unref();
    job.ended = exited.then(async (result) => {
      clearTimeout(job.runtimeTimer);
      await started.release();
      if (result.error) output.append(Buffer.from(`[the job could not be started: ${result.error.message}]\n`));
      await output.close().catch((error: unknown) => this.#options.logger.warn({ job_id: id, err: error }, "could not write a job's last output"));
      this.#running.delete(id);
      const status = job.ending === undefined ? JobStatus.exited : JobStatus[job.ending];
      await finishJob(prisma, id, { status, exitCode: result.code }).catch((error: unknown) =>
        this.#options.logger.error({ job_id: id, err: error }, "could not record the end of a job; the reconciler will mark it lost"),
      );
      this.#options.logger.info({ job_id: id, status, exit_code: result.code, signal: result.signal }, "job ended");
    });
    this.#running.set(id, job);
    this.#options.logger.info({ job_id: id, user_id: input.userId, run_id: input.runId }, "job started");
    return { ok: true as const, job: record };
  }

  async stop(userId: string, jobId: string): Promise<JobRecord> {
    const job = await requestJobStop(this.#options.prisma, userId, jobId);
    if (this.#running.has(jobId)) this.#end(jobId, "stopped");
    else await publishControl(this.#options.redis, this.#options.queuePrefix, { type: "job.stop", job_id: jobId });
    return job;
  }

  list(userId: string, filter: { workspaceId?: string }): Promise<JobRecord[]> {
    return listOwnJobs(this.#options.prisma, userId, filter);
  }

  get(userId: string, jobId: string): Promise<JobRecord> {
    return findOwnJob(this.#options.prisma, userId, jobId);
  }

  async output(userId: string, jobId: string, input: { offset: number; maxBytes: number }) {
    const job = await findOwnJob(this.#options.prisma, userId, jobId);
    return readJobOutput(job.outputPath, { ...input, finished: job.status !== JobStatus.running });
  }

  /** A control message: stop the job if this worker owns it. */
  handleStopRequest(jobId: string): void {
    if (this.#running.has(jobId)) this.#end(jobId, "stopped");
  }

  /** Renews the leases of the jobs this worker runs, and stops those whose stop was requested meanwhile. */
  async renewLeases(): Promise<void> {
    const ids = [...this.#running.keys()];
    if (ids.length === 0) return;
    try {
      const stopping = await renewJobLeases(this.#options.prisma, this.#options.workerId, ids, this.#options.leaseMs);
      for (const id of stopping) this.#end(id, "stopped");
    } catch (error) {
      this.#options.logger.warn({ err: error, jobs: ids.length }, "job lease renewal failed");
    }
  }

  runningJobIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Worker shutdown: every job ends with it (recorded `lost`: its worker went away). */
  async close(): Promise<void> {
    clearInterval(this.#heartbeat);
    const jobs = [...this.#running.entries()];
    for (const [id] of jobs) this.#end(id, "lost");
    await Promise.all(jobs.map(([, job]) => job.ended));
  }

  /** SIGTERM to the job's process group, SIGKILL after the grace period. */
  #end(jobId: string, reason: "stopped" | "timed_out" | "lost"): void {
    const job = this.#running.get(jobId);
    if (!job || job.ending !== undefined) return;
    job.ending = reason;
    const pid = job.child.pid;
    if (pid === undefined) return;
    signalGroup(pid, "SIGTERM");
    const kill = setTimeout(() => signalGroup(pid, "SIGKILL"), this.#options.killGraceMs ?? 2_000);
    kill.unref();
    void job.ended.then(() => clearTimeout(kill));
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
