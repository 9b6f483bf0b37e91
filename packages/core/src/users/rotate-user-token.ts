import { recordAuditEntry } from "../audit/record-audit-entry.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import { generateId } from "../ids.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { deleteUserTokens, insertApiTokenIfAbsent, selectUserRecord } from "../store/statements/user-statements.ts";
import { generateApiToken, hashApiToken } from "./api-token.ts";

/**
 * Replaces every token of a user with one new token, returned in clear once (only its hash is
 * stored). The old tokens stop working when the transaction commits: authentication looks the hash
 * up on every request, with no cache. Unknown user: NotFoundError. A disabled user may get a new
 * token; it answers 401 until the user is enabled again.
 */
export async function rotateUserToken(
  prisma: PrismaClient,
  userId: string,
  options: { generateId?: (prefix: string) => string; actorId?: string | null } = {},
): Promise<string> {
  const newId = options.generateId ?? generateId;
  return inSqlTransaction(sqlPoolOf(prisma), async (client) => {
    // The row lock serializes two rotations of one user: each ends with exactly one token.
    if ((await selectUserRecord(client, userId, { forUpdate: true })) === undefined) throw new NotFoundError("user", { user_id: userId });
    await deleteUserTokens(client, userId);
    const token = generateApiToken();
    await insertApiTokenIfAbsent(client, { id: newId("tok"), userId, tokenHash: hashApiToken(token) });
    if (options.actorId !== undefined) await recordAuditEntry(client, { actorId: options.actorId, action: "user.token_rotated", target: `user:${userId}` });
    return token;
  });
}
