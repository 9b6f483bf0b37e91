import { z } from "zod";
import type { Db } from "../create-prisma-client.ts";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

/**
 * Serializes job starts of one user until the transaction ends (jobs/job-store.ts counts the user's
 * running jobs and inserts one under it). It takes a Prisma transaction client, not a SqlRunner: the
 * count and the insert are Prisma calls, and the lock must be held by their transaction.
 */
export async function lockJobStartsOfUser(tx: Db, userId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('agentq.jobs'), hashtext(${userId}))`;
}

const jobIdRow = z.object({ id: z.string() });

/**
 * Marks `lost` the running jobs whose lease expired before `now` (their worker stopped renewing
 * them) and returns their ids. Every worker's reconciler runs it: plain SQL, so a worker that starts
 * no jobs never loads Prisma's query compiler.
 */
export async function markExpiredJobsLost(runner: SqlRunner, now: Date): Promise<string[]> {
  const rows = await queryParsed(
    runner,
    "UPDATE jobs SET status = 'lost', ended_at = $1 WHERE status = 'running' AND lease_expires_at < $1 RETURNING id",
    [now],
    jobIdRow,
  );
  return rows.map((row) => row.id);
}
