import { randomBytes } from "node:crypto";
import type { PrismaClient } from "./create-prisma-client.ts";

/**
 * A secret generated once for the whole deployment and stored in Postgres, so every API instance
 * and worker uses the same one. Concurrent first starts agree: only the first insert wins.
 */
export async function ensureSystemSecret(prisma: PrismaClient, name: string): Promise<string> {
  await prisma.$executeRaw`INSERT INTO system_secrets (name, value) VALUES (${name}, ${randomBytes(32).toString("base64url")}) ON CONFLICT (name) DO NOTHING`;
  const row = await prisma.systemSecret.findUniqueOrThrow({ where: { name } });
  return row.value;
}

/** APPROVAL_SECRET when configured; otherwise the key generated once and stored in the database. */
export async function resolveApprovalSecret(prisma: PrismaClient, configured: string | undefined): Promise<string> {
  return configured ?? ensureSystemSecret(prisma, "approval_secret");
}
