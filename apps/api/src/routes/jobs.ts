import { z } from "zod";
import { findOwnJob, getWorkspace, JobStatus, listOwnJobs, readJobOutput, stopJob, toJobView } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { jobListSchema, jobOutputSchema, jobSchema, jobStatusSchema } from "../schemas/job-schemas.ts";

const listQuery = z.object({
  workspace_id: z.string().min(1).max(200).optional(),
  status: jobStatusSchema.optional(),
});

/** Default and largest `max_bytes` of one output read: 64 KiB and 1 MiB. */
const DEFAULT_OUTPUT_BYTES = 64 * 1024;
const MAX_OUTPUT_BYTES = 1024 * 1024;

const outputQuery = z.object({
  offset: z
    .string()
    .regex(/^\d{1,15}$/, "offset must be a non-negative whole number")
    .transform(Number)
    .optional()
    .meta({ description: "where to read from in the output stream (default 0)" }),
  max_bytes: z
    .string()
    .regex(/^\d{1,9}$/, "max_bytes must be a positive whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_OUTPUT_BYTES))
    .optional()
    .meta({ description: `bytes to read at most: 1-${MAX_OUTPUT_BYTES}, default ${DEFAULT_OUTPUT_BYTES}` }),
});

const JOB_ID = "the job's id";

/** Background jobs (API.md "Process tools, the sandbox and background jobs"): the caller's own only. */
export const jobRoutes = [
  defineRoute({
    method: "get",
    path: "/api/jobs",
    operationId: "listJobs",
    summary: "The caller's background jobs",
    query: listQuery,
    responses: { 200: { description: "the jobs", schema: jobListSchema } },
    errors: { 404: "`not_found`: the workspace does not exist or is someone else's" },
    handler: async ({ dependencies, user, query }) => {
      const { prisma } = dependencies;
      // Someone else's workspace is answered like a missing one (invariant 7).
      if (query.workspace_id !== undefined) await getWorkspace(prisma, user.id, query.workspace_id);
      const jobs = await listOwnJobs(prisma, user.id, {
        ...(query.workspace_id === undefined ? {} : { workspaceId: query.workspace_id }),
        ...(query.status === undefined ? {} : { status: query.status }),
      });
      return { status: 200, body: { jobs: jobs.map(toJobView) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/jobs/:id",
    operationId: "getJob",
    summary: "A background job",
    parameters: { id: JOB_ID },
    responses: { 200: { description: "the job", schema: jobSchema } },
    handler: async ({ dependencies, user, params }) => ({ status: 200, body: toJobView(await findOwnJob(dependencies.prisma, user.id, params.id)) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/jobs/:id/output",
    operationId: "getJobOutput",
    summary: "A slice of a job's output",
    parameters: { id: JOB_ID },
    query: outputQuery,
    responses: { 200: { description: "the output from `offset`", schema: jobOutputSchema } },
    handler: async ({ dependencies, user, params, query }) => {
      const job = await findOwnJob(dependencies.prisma, user.id, params.id);
      const slice = await readJobOutput(job.outputPath, {
        offset: query.offset ?? 0,
        maxBytes: query.max_bytes ?? DEFAULT_OUTPUT_BYTES,
        finished: job.status !== JobStatus.running,
      });
      return { status: 200, body: slice };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/jobs/:id/stop",
    operationId: "stopJob",
    summary: "Stop a background job",
    parameters: { id: JOB_ID },
    responses: { 202: { description: "the job, asked to stop", schema: jobSchema } },
    errors: { 409: "`job_finished`: the job has already ended" },
    handler: async ({ dependencies, user, params }) => {
      const { prisma, runs } = dependencies;
      const job = await stopJob({ prisma, notifyOwner: (jobId) => runs.requestJobStop(jobId) }, user.id, params.id);
      return { status: 202, body: toJobView(job) };
    },
  }),
];
