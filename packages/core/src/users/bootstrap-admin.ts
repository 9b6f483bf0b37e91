import { AgentqError } from "../errors/agentq-error.ts";
import { generateId } from "../ids.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { insertApiTokenIfAbsent, insertUserIfAbsent, selectTokenOwner, selectUserByName, updateUserRole } from "../store/statements/user-statements.ts";
import { generateApiToken, hashApiToken } from "./api-token.ts";

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
  // Plain SQL: every API instance runs this at start, and no Prisma query there means Prisma's
  // query compiler (~55 MB) loads only if a route that still uses Prisma is called.
  return inSqlTransaction(sqlPoolOf(prisma), async (client) => {
    const created = await insertUserIfAbsent(client, { id: newId("usr"), name: ADMIN_USER_NAME, role: "admin" });
    const admin = await selectUserByName(client, ADMIN_USER_NAME);
    if (!admin) throw new Error("the admin user is missing right after it was inserted");
    if (admin.role !== "admin") await updateUserRole(client, { userId: admin.id, role: "admin" });

    if (adminToken !== undefined) {
      const tokenHash = hashApiToken(adminToken);
      await insertApiTokenIfAbsent(client, { id: newId("tok"), userId: admin.id, tokenHash });
      if ((await selectTokenOwner(client, tokenHash)) !== admin.id) {
        throw new AgentqError("admin_token_conflict", "ADMIN_TOKEN is already the token of another user; choose another value");
      }
      return { adminUserId: admin.id, generatedToken: undefined };
    }
    if (created === 0) return { adminUserId: admin.id, generatedToken: undefined };
    const token = generateApiToken();
    await insertApiTokenIfAbsent(client, { id: newId("tok"), userId: admin.id, tokenHash: hashApiToken(token) });
    return { adminUserId: admin.id, generatedToken: token };
  });
}
