import { AgentqError } from "../errors/agentq-error.ts";
import { generateId } from "../ids.ts";
import type { PrismaClient } from "../store/create-prisma-client.ts";
import { generateApiToken, hashApiToken } from "./api-token.ts";
import { TRANSACTION_OPTIONS } from "../store/create-prisma-client.ts";

export const ADMIN_USER_NAME = "admin";

export interface BootstrapAdminOptions {
  /** ADMIN_TOKEN: registered for `admin` when given. Default none: a token is generated if no admin exists. */
  adminToken?: string | undefined;
  generateId?: (prefix: string) => string;
}

export interface BootstrapAdminResult {
  adminUserId: string;
  /** Set only in the one process that created the admin user: the caller logs it once. */
  generatedToken: string | undefined;
}

/**
 * Makes sure the user `admin` exists with the admin role and a usable token. Safe when several API
 * instances start at once: inserts are INSERT ... ON CONFLICT DO NOTHING, so the unique indexes on
 * `users.name` and `api_tokens.token_hash` decide one winner, and only the instance whose insert
 * created the admin user generates (and reports) a token.
 */
export async function bootstrapAdmin(prisma: PrismaClient, options: BootstrapAdminOptions = {}): Promise<BootstrapAdminResult> {
  const newId = options.generateId ?? generateId;
  const adminToken = options.adminToken;
  return prisma.$transaction(async (tx) => {
    const { count: created } = await tx.user.createMany({
      data: [{ id: newId("usr"), name: ADMIN_USER_NAME, role: "admin" }],
      skipDuplicates: true,
    });
    const admin = await tx.user.findUniqueOrThrow({ where: { name: ADMIN_USER_NAME }, select: { id: true, role: true } });
    if (admin.role !== "admin") await tx.user.update({ where: { id: admin.id }, data: { role: "admin" } });

    if (adminToken !== undefined) {
      const tokenHash = hashApiToken(adminToken);
      await tx.apiToken.createMany({ data: [{ id: newId("tok"), userId: admin.id, tokenHash }], skipDuplicates: true });
      const owner = await tx.apiToken.findUniqueOrThrow({ where: { tokenHash }, select: { userId: true } });
      if (owner.userId !== admin.id) {
        throw new AgentqError("admin_token_conflict", "ADMIN_TOKEN is already the token of another user; choose another value");
      }
      return { adminUserId: admin.id, generatedToken: undefined };
    }
    if (created === 0) return { adminUserId: admin.id, generatedToken: undefined };
    const token = generateApiToken();
    await tx.apiToken.create({ data: { id: newId("tok"), userId: admin.id, tokenHash: hashApiToken(token) } });
    return { adminUserId: admin.id, generatedToken: token };
  }, TRANSACTION_OPTIONS);
}
