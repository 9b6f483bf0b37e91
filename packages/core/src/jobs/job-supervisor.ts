import path from "node:path";
import { generateId } from "../ids.ts";
import type { LoopLogger } from "../runs/run-loop-dependencies.ts";
import { loadSettings } from "../settings/agent-settings.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import type { JobControl } from "../tools/process/job-tools.ts";
import { runProcessGroup } from "../tools/process/run-process-group.ts";
import type { ProcessSandbox, SandboxedProcess } from "../tools/process/sandbox/process-sandbox.ts";
import { JobOutputWriter, readJobOutput } from "./job-output.ts";
import { JobStatus } from "./job-status.ts";
import { findOwnJob, finishJob, insertRunningJob, listOwnJobs, renewJobLeases } from "./job-store.ts";
import type { JobRecord } from "./job-view.ts";
import { stopJob } from "./stop-job.ts";

export interface JobSupervisorOptions {
  prisma: PrismaClient;
  /** Tells the worker that owns a job, wherever it is, to stop it (the app publishes a control message). */
  notifyStop(jobId: string): void;
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
  /** Aborted to end the job; `ending` says why. */
  controller: AbortController;
  ending?: "stopped" | "lost";
  ended: Promise<void>;
}

/**
 * Runs background jobs in the sandbox and owns them for their whole life: output, runtime limit,
 * lease renewal and stop requests (API.md "Process tools, the sandbox and background jobs"). A job
 * is a process group driven by runProcessGroup, as a command is, with its output going to shared
 * storage instead of memory. Its state is in Postgres, so any worker or API instance can read it.
 * A worker that dies takes its jobs with it (the sandbox dies with its parent) and the reconciler
 * marks them `lost`.
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
    const job: RunningJob = { controller: new AbortController(), ended: Promise.resolve() };
    job.ended = runProcessGroup({
      start: async () => started,
      timeoutMs: settings.job_max_runtime_seconds * 1000,
      signal: job.controller.signal,
      output,
      killGraceMs: this.#options.killGraceMs ?? 2_000,
    })
      .then(async (outcome) => {
        await output.close().catch((error: unknown) => this.#options.logger.warn({ job_id: id, err: error }, "could not write a job's last output"));
        const status =
          outcome.termination === "timed_out"
            ? JobStatus.timed_out
            : outcome.termination === "cancelled"
              ? JobStatus[job.ending ?? "stopped"]
              : JobStatus.exited;
        await finishJob(prisma, id, { status, exitCode: outcome.exitCode });
        this.#options.logger.info({ job_id: id, status, exit_code: outcome.exitCode, signal: outcome.exitSignal }, "job ended");
      })
      .catch((error: unknown) => this.#options.logger.error({ job_id: id, err: error }, "could not record the end of a job; the reconciler will mark it lost"))
      .finally(() => this.#running.delete(id));
    this.#running.set(id, job);
    this.#options.logger.info({ job_id: id, user_id: input.userId, run_id: input.runId }, "job started");
    return { ok: true as const, job: record };
  }

  stop(userId: string, jobId: string): Promise<JobRecord> {
    return stopJob(
      { prisma: this.#options.prisma, notifyOwner: (id) => (this.#running.has(id) ? this.#end(id, "stopped") : this.#options.notifyStop(id)) },
      userId,
      jobId,
    );
  }

  list(userId: string, filter: { workspaceId?: string }): Promise<JobRecord[]> {
    return listOwnJobs(this.#options.prisma, userId, filter);
  }

  get(userId: string, jobId: string): Promise<JobRecord> {
    return findOwnJob(this.#options.prisma, userId, jobId);
  }

  async output(userId: string, jobId: string, input: { offset: number; maxBytes: number }) {
    const job = await findOwnJob(this.#options.prisma, userId, jobId);
    const slice = await readJobOutput(job.outputPath, { ...input, finished: job.status !== JobStatus.running });
    return { ...slice, command: job.command };
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

  /** Ends a running job with its whole process group (runProcessGroup: SIGTERM, then SIGKILL after the grace period). */
  #end(jobId: string, reason: "stopped" | "lost"): void {
    const job = this.#running.get(jobId);
    if (!job || job.ending !== undefined) return;
    job.ending = reason;
    job.controller.abort();
  }
}
