import type { UserRecordRow } from "../store/statements/user-statements.ts";
import type { UserRole } from "./user.ts";

/**
 * A user as the API shows it to an admin (API.md, "Team operations"). A `null` limit is the
 * deployment's default from the settings (`user_max_active_runs`, `user_runs_per_day`, `user_tokens_per_day`).
 */
export interface UserView {
  id: string;
  name: string;
  role: UserRole;
  disabled: boolean;
  max_active_runs: number | null;
  runs_per_day: number | null;
  tokens_per_day: number | null;
  created_at: string;
}

export function toUserView(row: UserRecordRow): UserView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    disabled: row.disabled,
    max_active_runs: row.max_active_runs,
    runs_per_day: row.runs_per_day,
    tokens_per_day: row.tokens_per_day,
    created_at: row.created_at.toISOString(),
  };
}
