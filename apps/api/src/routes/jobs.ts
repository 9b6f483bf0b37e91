import { Router } from "express";
import { z } from "zod";
import { findOwnJob, getWorkspace, JobStatus, listOwnJobs, readJobOutput, stopJob, toJobView } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const listQuery = z.object({
  workspace_id: z.string().min(1).max(200).optional(),
  status: z.enum(Object.values(JobStatus) as [JobStatus, ...JobStatus[]]).optional(),
});

/** Default and largest `max_bytes` of one output read: 64 KiB and 1 MiB. */
const DEFAULT_OUTPUT_BYTES = 64 * 1024;
const MAX_OUTPUT_BYTES = 1024 * 1024;

const outputQuery = z.object({
  offset: z
    .string()
    .regex(/^\d{1,15}$/, "offset must be a non-negative whole number")
    .transform(Number)
    .optional(),
  max_bytes: z
    .string()
    .regex(/^\d{1,9}$/, "max_bytes must be a positive whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_OUTPUT_BYTES))
    .optional(),
});

/** Background jobs (API.md "Process tools, the sandbox and background jobs"): the caller's own only. */
export function jobsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma, runs } = dependencies;

  router.get("/api/jobs", async (request, response) => {
    const user = currentUser(request);
    const query = parseRequest(listQuery, request.query, "query");
    // Someone else's workspace is answered like a missing one (invariant 7).
    if (query.workspace_id !== undefined) await getWorkspace(prisma, user.id, query.workspace_id);
    const jobs = await listOwnJobs(prisma, user.id, {
      ...(query.workspace_id === undefined ? {} : { workspaceId: query.workspace_id }),
      ...(query.status === undefined ? {} : { status: query.status }),
    });
    response.json({ jobs: jobs.map(toJobView) });
  });

  router.get("/api/jobs/:id", async (request, response) => {
    response.json(toJobView(await findOwnJob(prisma, currentUser(request).id, request.params.id)));
  });

  router.get("/api/jobs/:id/output", async (request, response) => {
    const job = await findOwnJob(prisma, currentUser(request).id, request.params.id);
    const query = parseRequest(outputQuery, request.query, "query");
    const slice = await readJobOutput(job.outputPath, {
      offset: query.offset ?? 0,
      maxBytes: query.max_bytes ?? DEFAULT_OUTPUT_BYTES,
      finished: job.status !== JobStatus.running,
    });
    response.json(slice);
  });

  router.post("/api/jobs/:id/stop", async (request, response) => {
    const job = await stopJob({ prisma, notifyOwner: (jobId) => runs.requestJobStop(jobId) }, currentUser(request).id, request.params.id);
    response.status(202).json(toJobView(job));
  });

  return router;
}
