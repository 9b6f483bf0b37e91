import type { PrismaClient } from "../store/create-prisma-client.ts";
import { requestJobStop } from "./job-store.ts";
import type { JobRecord } from "./job-view.ts";

/**
 * Stops a job from anywhere (POST /api/jobs/:id/stop, the stop_job tool): flags it in Postgres, the
 * owner's fallback should the message be lost (it reads the flag at its next lease renewal), then
 * tells the owner (a control message, or the local supervisor). Someone else's job is not_found;
 * a finished one JobFinishedError. Returns the job as it was when the stop was asked.
 */
export async function stopJob(dependencies: { prisma: PrismaClient; notifyOwner(jobId: string): void }, userId: string, jobId: string): Promise<JobRecord> {
  const job = await requestJobStop(dependencies.prisma, userId, jobId);
  dependencies.notifyOwner(job.id);
  return job;
}
