import { NotFoundError } from "../errors/agentq-error.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { lockJobStartsOfUser, markExpiredJobsLost } from "../store/statements/job-statements.ts";
import { JobFinishedError } from "./job-errors.ts";
import { JobStatus } from "./job-status.ts";
import type { JobRecord } from "./job-view.ts";

const JOB_COLUMNS = {
  id: true,
  userId: true,
  workspaceId: true,
  runId: true,
  name: true,
  command: true,
  status: true,
  exitCode: true,
  ownerWorker: true,
  outputPath: true,
  startedAt: true,
  endedAt: true,
} as const;

/** The caller's job, or not_found (someone else's job is answered exactly like a missing one). */
export async function findOwnJob(prisma: PrismaClient, userId: string, jobId: string): Promise<JobRecord> {
  const job = await prisma.job.findFirst({ where: { id: jobId, userId }, select: JOB_COLUMNS });
  if (!job) throw new NotFoundError("job", { job_id: jobId });
  return job;
}

/** The caller's jobs, newest first, optionally of one workspace and status. */
export async function listOwnJobs(
  prisma: PrismaClient,
  userId: string,
  filter: { workspaceId?: string; status?: JobStatus; limit?: number } = {},
): Promise<JobRecord[]> {
  return prisma.job.findMany({
    where: { userId, ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}), ...(filter.status ? { status: filter.status } : {}) },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: filter.limit ?? 500,
    select: JOB_COLUMNS,
  });
}

export interface NewJob extends Pick<JobRecord, "id" | "userId" | "workspaceId" | "runId" | "name" | "command" | "ownerWorker" | "outputPath"> {
  leaseMs: number;
  maxRunning: number;
}

/**
 * Records a job as running, unless the user already has `maxRunning` running jobs: the count and
 * the insert happen under a per-user advisory lock, so two starts at once cannot both pass the limit.
 * Returns undefined when the limit is reached.
 */
export async function insertRunningJob(prisma: PrismaClient, job: NewJob): Promise<JobRecord | undefined> {
  return prisma.$transaction(async (tx) => {
    await lockJobStartsOfUser(tx, job.userId);
    const running = await tx.job.count({ where: { userId: job.userId, status: JobStatus.running } });
    if (running >= job.maxRunning) return undefined;
    return tx.job.create({
      data: {
        id: job.id,
        userId: job.userId,
        workspaceId: job.workspaceId,
        runId: job.runId,
        name: job.name,
        command: job.command,
        ownerWorker: job.ownerWorker,
        outputPath: job.outputPath,
        leaseExpiresAt: new Date(Date.now() + job.leaseMs),
      },
      select: JOB_COLUMNS,
    });
  });
}

/** Records how a running job ended (a no-op for a job that already ended, e.g. marked lost). */
export async function finishJob(prisma: PrismaClient, jobId: string, outcome: { status: JobStatus; exitCode: number | null }): Promise<void> {
  await prisma.job.updateMany({
    where: { id: jobId, status: JobStatus.running },
    data: { status: outcome.status, exitCode: outcome.exitCode, endedAt: new Date() },
  });
}

/**
 * Asks for a job to stop: flags it (the owner also learns it from its next lease renewal, should
 * the control message be lost). A job that has ended is JobFinishedError.
 */
export async function requestJobStop(prisma: PrismaClient, userId: string, jobId: string): Promise<JobRecord> {
  const job = await findOwnJob(prisma, userId, jobId);
  if (job.status !== JobStatus.running) throw new JobFinishedError(jobId, job.status);
  await prisma.job.updateMany({ where: { id: jobId, status: JobStatus.running }, data: { stopRequested: true } });
  return job;
}

/** Extends the leases of the jobs a worker runs; returns the ids whose stop was requested. */
export async function renewJobLeases(prisma: PrismaClient, owner: string, jobIds: readonly string[], leaseMs: number): Promise<string[]> {
  if (jobIds.length === 0) return [];
  // One statement: the renewal returns the stop flags with it.
  const renewed = await prisma.job.updateManyAndReturn({
    where: { id: { in: [...jobIds] }, ownerWorker: owner, status: JobStatus.running },
    data: { leaseExpiresAt: new Date(Date.now() + leaseMs) },
    select: { id: true, stopRequested: true },
  });
  return renewed.filter((job) => job.stopRequested).map((job) => job.id);
}

/** Marks running jobs whose owner stopped renewing them as `lost` (the reconciler). Returns their ids. */
export async function markLostJobs(prisma: PrismaClient, now: Date = new Date()): Promise<string[]> {
  return markExpiredJobsLost(sqlPoolOf(prisma), now);
}
