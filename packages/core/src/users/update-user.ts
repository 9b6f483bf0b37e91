import { recordAuditEntry } from "../audit/record-audit-entry.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { inSqlTransaction } from "../store/sql-pool.ts";
import { lockEnabledAdmins, selectUserRecord, updateUserAccess } from "../store/statements/user-statements.ts";
import type { UserRole } from "./user.ts";
import { LastAdminError } from "./user-errors.ts";
import { toUserView, type UserView } from "./user-view.ts";

/** What an admin may change about a user; a field left out keeps its value. */
export interface UserChanges {
  role?: UserRole | undefined;
  disabled?: boolean | undefined;
  /** The user's own limits; null: back to the deployment's setting. */
  max_active_runs?: number | null | undefined;
  runs_per_day?: number | null | undefined;
  tokens_per_day?: number | null | undefined;
}

/**
 * Changes a user's role, disabled flag or limits (a raised max_active_runs admits waiting runs at
 * the next admission of theirs: a run of theirs ending, a new one, or the sweep). A disabled user's tokens answer 401 from the next request
 * on (authentication reads the flag on every request); their runs are left to finish. A change that
 * would leave no enabled admin is refused with LastAdminError: the enabled admins' rows are locked
 * first, so two admins demoting each other at once cannot both succeed. Unknown user: NotFoundError.
 */
export async function updateUser(prisma: PrismaClient, userId: string, changes: UserChanges, options: { actorId?: string | null } = {}): Promise<UserView> {
  return inSqlTransaction(sqlPoolOf(prisma), async (client) => {
    const enabledAdmins = await lockEnabledAdmins(client);
    const current = await selectUserRecord(client, userId, { forUpdate: true });
    if (current === undefined) throw new NotFoundError("user", { user_id: userId });
    const role = changes.role ?? current.role;
    const disabled = changes.disabled ?? current.disabled;
    const remainsEnabledAdmin = role === "admin" && !disabled;
    if (enabledAdmins.includes(userId) && !remainsEnabledAdmin && enabledAdmins.length <= 1) throw new LastAdminError(userId);
    const updated = await updateUserAccess(client, {
      userId,
      role,
      disabled,
      maxActiveRuns: changes.max_active_runs === undefined ? current.max_active_runs : changes.max_active_runs,
      runsPerDay: changes.runs_per_day === undefined ? current.runs_per_day : changes.runs_per_day,
      tokensPerDay: changes.tokens_per_day === undefined ? current.tokens_per_day : changes.tokens_per_day,
    });
    if (updated === undefined) throw new NotFoundError("user", { user_id: userId });
    if (options.actorId !== undefined) {
      await recordAuditEntry(client, { actorId: options.actorId, action: "user.updated", target: `user:${userId}`, details: { changes } });
    }
    return toUserView(updated);
  });
}
