import { generateId } from "../ids.ts";
import { sqlPoolOf, type Db, type PrismaClient } from "../store/create-prisma-client.ts";
import { selectUserByTokenHash } from "../store/statements/user-statements.ts";
import { generateApiToken, hashApiToken } from "./api-token.ts";
import type { AuthenticatedUser, UserRole } from "./user.ts";
import { UserExistsError } from "./user-errors.ts";

export interface CreatedUser extends AuthenticatedUser {
  /** The bearer token in clear: returned once, never stored. */
  token: string;
}

/** Creates a user and its first token (one transaction). Duplicate name: UserExistsError. */
export async function createUser(
  db: Db,
  input: { name: string; role: UserRole },
  options: { generateId?: (prefix: string) => string; actorId?: string | null } = {},
): Promise<CreatedUser> {
  const newId = options.generateId ?? generateId;
  const token = generateApiToken();
  const userId = newId("usr");
  const create = async (tx: Db) => {
    // createMany + skipDuplicates is INSERT ... ON CONFLICT DO NOTHING: a concurrent duplicate is a
    // count of 0 rather than an exception that would abort the transaction.
    const { count } = await tx.user.createMany({ data: [{ id: userId, name: input.name, role: input.role }], skipDuplicates: true });
    if (count === 0) throw new UserExistsError(input.name);
    await tx.apiToken.create({ data: { id: newId("tok"), userId, tokenHash: hashApiToken(token) } });
    // An admin's creation is audited with it (the bootstrap's and tests' users have no actor to record).
    if (options.actorId !== undefined) {
      await tx.auditEntry.create({
        data: { id: newId("aud"), actorId: options.actorId, action: "user.created", target: `user:${userId}`, details: { name: input.name, role: input.role } },
      });
    }
  };
  if ("$transaction" in db) await db.$transaction(create);
  else await create(db);
  return { id: userId, name: input.name, role: input.role, token };
}

/**
 * The user a bearer token belongs to, or undefined for an unknown token. Every request asks this,
 * so it is one plain statement on the client's pool (store/statements/user-statements.ts), not a
 * Prisma query.
 */
export async function findUserByToken(prisma: PrismaClient, token: string): Promise<AuthenticatedUser | undefined> {
  return selectUserByTokenHash(sqlPoolOf(prisma), hashApiToken(token));
}
