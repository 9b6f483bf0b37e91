import { randomBytes } from "node:crypto";
import { sqlPoolOf, type PrismaClient } from "./create-prisma-client.ts";
import { insertSystemSecretIfAbsent } from "./statements/system-secret-statements.ts";

/**
 * A secret generated once for the whole deployment and stored in Postgres, so every API instance
 * and worker uses the same one. Concurrent first starts agree: only the first insert wins.
 */
export async function ensureSystemSecret(prisma: PrismaClient, name: string): Promise<string> {
  await insertSystemSecretIfAbsent(sqlPoolOf(prisma), { name, value: randomBytes(32).toString("base64url") });
  const row = await prisma.systemSecret.findUniqueOrThrow({ where: { name } });
  return row.value;
}

/** APPROVAL_SECRET when configured; otherwise the key generated once and stored in the database. */
export async function resolveApprovalSecret(prisma: PrismaClient, configured: string | undefined): Promise<string> {
  return configured ?? ensureSystemSecret(prisma, "approval_secret");
}
