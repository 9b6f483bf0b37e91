import type { Db } from "../create-prisma-client.ts";

/**
 * Serializes job starts of one user until the transaction ends (jobs/job-store.ts counts the user's
 * running jobs and inserts one under it). It takes a Prisma transaction client, not a SqlRunner: the
 * count and the insert are Prisma calls, and the lock must be held by their transaction.
 */
export async function lockJobStartsOfUser(tx: Db, userId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('agentq.jobs'), hashtext(${userId}))`;
}
