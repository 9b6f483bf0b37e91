import { randomBytes } from "node:crypto";
import { sqlPoolOf, type PrismaClient } from "./create-prisma-client.ts";
import { insertSystemSecretIfAbsent, selectSystemSecret } from "./statements/system-secret-statements.ts";

/**
 * A secret generated once for the whole deployment and stored in Postgres, so every API instance
 * and worker uses the same one. Concurrent first starts agree: only the first insert wins. Plain SQL
 * (two statements: the read must see a concurrent first start's row, which an insert's CTE would
 * not): both processes ask at boot, and no Prisma query means Prisma's query compiler (~55 MB) is
 * never loaded in a worker.
 */
export async function ensureSystemSecret(prisma: PrismaClient, name: string): Promise<string> {
  const pool = sqlPoolOf(prisma);
  await insertSystemSecretIfAbsent(pool, { name, value: randomBytes(32).toString("base64url") });
  const value = await selectSystemSecret(pool, name);
  if (value === undefined) throw new Error(`the system secret ${name} is missing right after it was stored`);
  return value;
}

/** APPROVAL_SECRET when configured; otherwise the key generated once and stored in the database. */
export async function resolveApprovalSecret(prisma: PrismaClient, configured: string | undefined): Promise<string> {
  return configured ?? ensureSystemSecret(prisma, "approval_secret");
}
