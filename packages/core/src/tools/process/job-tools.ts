import { z } from "zod";
import type { JobOutputSlice } from "../../jobs/job-output.ts";
import type { JobRecord } from "../../jobs/job-view.ts";
import { toJobView } from "../../jobs/job-view.ts";
import { AgentqError } from "../../errors/agentq-error.ts";
import type { ToolContext, ToolDefinition, ToolResult, WorkspaceRef } from "../tool-definition.ts";

/** What the job tools ask of the process that runs them (the worker's job supervisor). */
export interface JobControl {
  /** Starts a job in the sandbox; a refusal (the user's job_max_running reached, no sandbox) is `{ok: false}`. */
  start(input: {
    userId: string;
    runId: string;
    workspace: WorkspaceRef;
    command: string;
    name: string;
  }): Promise<{ ok: true; job: JobRecord } | { ok: false; error: string }>;
  /** Asks the job's owner (any worker) to stop it; a finished job is JobFinishedError. */
  stop(userId: string, jobId: string): Promise<JobRecord>;
  list(userId: string, filter: { workspaceId?: string }): Promise<JobRecord[]>;
  get(userId: string, jobId: string): Promise<JobRecord>;
  /** A slice of the job's output, with the job's command (what a tainted run's approvals name the read by). */
  output(userId: string, jobId: string, input: { offset: number; maxBytes: number }): Promise<JobOutputSlice & { command: string }>;
}

/** Default and largest `max_bytes` of one `job_output` call: 16 KiB (about 4k tokens), 256 KiB. */
const DEFAULT_OUTPUT_BYTES = 16 * 1024;
const MAX_OUTPUT_BYTES = 256 * 1024;

const jobId = z.string().min(1).max(200).describe("The job_id that start_job returned.");

/**
 * Background jobs (API.md, "Process tools, the sandbox and background jobs"): `start_job` and
 * `stop_job` are process effects (they pause for approval after taint, like run_command);
 * `list_jobs`, `job_status` and `job_output` only read, and `job_output` taints (a job's output is
 * untrusted material). `control` is null where tools are only listed (the API).
 */
export function createJobTools(control: JobControl | null): ToolDefinition[] {
  const withControl = async (_context: ToolContext, action: (jobs: JobControl) => Promise<ToolResult>): Promise<ToolResult> => {
    if (control === null) return { ok: false, error: "background jobs are not available in this process" };
    try {
      return await action(control);
    } catch (error) {
      if (error instanceof AgentqError) return { ok: false, error: error.message, data: { code: error.code } };
      throw error;
    }
  };

  const startJob: ToolDefinition<{ command: string; name?: string | undefined }> = {
    name: "start_job",
    family: "process",
    description:
      "Start a long-running bash command in the background in the workspace (a dev server, a build, a test suite) and return its job_id at once. " +
      "It keeps running after this run ends, until it exits, is stopped or reaches the runtime limit. Read its output with job_output.",
    parameters: z.object({
      command: z.string().min(1).max(100_000).describe("The bash command line to run."),
      name: z.string().min(1).max(200).optional().describe("A short name to recognise the job by (default: the command's start)."),
    }),
    effects: ["process"],
    taints: false,
    requiresWorkspace: true,
    execute: (args, context) =>
      withControl(context, async (jobs) => {
        if (context.workspace === null) return { ok: false, error: "start_job needs a workspace, and this run has none." };
        const name = args.name ?? args.command.slice(0, 60);
        const started = await jobs.start({ userId: context.userId, runId: context.runId, workspace: context.workspace, command: args.command, name });
        if (!started.ok) return { ok: false, error: started.error };
        return { ok: true, output: `Started job ${started.job.id} (${name}). Read its output with job_output.`, data: { job_id: started.job.id } };
      }),
  };

  const listJobs: ToolDefinition<Record<string, never>> = {
    name: "list_jobs",
    family: "process",
    description: "List your background jobs in this workspace with their status.",
    parameters: z.object({}),
    effects: ["read"],
    taints: false,
    requiresWorkspace: true,
    execute: (_args, context) =>
      withControl(context, async (jobs) => {
        const list = await jobs.list(context.userId, context.workspace ? { workspaceId: context.workspace.id } : {});
        if (list.length === 0) return { ok: true, output: "No jobs in this workspace.", data: { jobs: [] } };
        const lines = list.map((job) => `${job.id}  ${job.status}${job.exitCode === null ? "" : ` (exit ${job.exitCode})`}  ${job.name}`);
        return { ok: true, output: `${list.length} job(s):\n${lines.join("\n")}`, data: { jobs: list.map(toJobView) } };
      }),
  };

  const jobStatus: ToolDefinition<{ job_id: string }> = {
    name: "job_status",
    family: "process",
    description: "The status of a background job: running, exited (with its exit code), stopped, timed_out or lost.",
    parameters: z.object({ job_id: jobId }),
    effects: ["read"],
    taints: false,
    requiresWorkspace: true,
    execute: (args, context) =>
      withControl(context, async (jobs) => {
        const job = await jobs.get(context.userId, args.job_id);
        const view = toJobView(job);
        return { ok: true, output: JSON.stringify(view), data: { ...view } };
      }),
  };

  const jobOutput: ToolDefinition<{ job_id: string; offset?: number | undefined; max_bytes?: number | undefined }> = {
    name: "job_output",
    family: "process",
    description:
      "Read a background job's output (stdout and stderr together) from `offset` (default 0). Pass the returned next_offset to read on. " +
      "Long output keeps its beginning and end; the middle is marked as omitted.",
    parameters: z.object({
      job_id: jobId,
      offset: z.number().int().min(0).optional().describe("Byte offset to read from (default 0)."),
      max_bytes: z.number().int().min(1).max(MAX_OUTPUT_BYTES).optional().describe(`Bytes to read at most (default ${DEFAULT_OUTPUT_BYTES}).`),
    }),
    effects: ["read"],
    taints: true,
    requiresWorkspace: true,
    describeCall: (args, result) => (typeof result.data?.command === "string" ? `output of ${result.data.command}` : `output of job ${args.job_id}`),
    execute: (args, context) =>
      withControl(context, async (jobs) => {
        const slice = await jobs.output(context.userId, args.job_id, { offset: args.offset ?? 0, maxBytes: args.max_bytes ?? DEFAULT_OUTPUT_BYTES });
        const state = slice.complete ? "the job has ended; this is the end of its output" : `more may follow: call job_output with offset ${slice.next_offset}`;
        return {
          ok: true,
          output: `[bytes ${slice.offset}-${slice.next_offset}; ${state}]\n${slice.output.length > 0 ? slice.output : "(no output yet)"}`,
          data: { offset: slice.offset, next_offset: slice.next_offset, complete: slice.complete, command: slice.command },
        };
      }),
  };

  const stopJob: ToolDefinition<{ job_id: string }> = {
    name: "stop_job",
    family: "process",
    description: "Stop a background job and everything it started.",
    parameters: z.object({ job_id: jobId }),
    effects: ["process"],
    taints: false,
    requiresWorkspace: true,
    execute: (args, context) =>
      withControl(context, async (jobs) => {
        const job = await jobs.stop(context.userId, args.job_id);
        return { ok: true, output: `Asked job ${job.id} (${job.name}) to stop; job_status shows when it has.`, data: { job_id: job.id } };
      }),
  };

  return [startJob, listJobs, jobStatus, jobOutput, stopJob];
}
