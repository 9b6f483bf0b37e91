import type { UserRecordRow } from "../store/statements/user-statements.ts";
import type { UserRole } from "./user.ts";

/**
 * A user as the API shows it to an admin (API.md, "Team operations"), without the per-user limits
 * (`max_active_runs`, `runs_per_day`, `tokens_per_day`): they arrive with the quota work.
 */
export interface UserView {
  id: string;
  name: string;
  role: UserRole;
  disabled: boolean;
  created_at: string;
}

export function toUserView(row: UserRecordRow): UserView {
  return { id: row.id, name: row.name, role: row.role, disabled: row.disabled, created_at: row.created_at.toISOString() };
}
