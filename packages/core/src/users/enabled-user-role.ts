import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { selectUserRole } from "../store/statements/user-statements.ts";
import type { UserRole } from "./user.ts";

/** The role of an enabled user; undefined for a disabled or unknown one. */
export async function selectEnabledUserRole(prisma: PrismaClient, userId: string): Promise<UserRole | undefined> {
  return selectUserRole(sqlPoolOf(prisma), userId);
}
