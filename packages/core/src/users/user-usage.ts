import type { Clock } from "../clock.ts";
import { NotFoundError } from "../errors/agentq-error.ts";
import { LIMIT_DEFAULTS } from "../runs/admit-runs.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { queryParsed } from "../store/sql-pool.ts";
import { selectUserUsage, userLimitColumns, userLimitsRow } from "../store/statements/admission-statements.ts";
import { quotaDay } from "./user-quotas.ts";

/** What a user has used today (UTC) and the limits that apply to them (GET /api/me, the admin's user list). */
export interface UserUsageView {
  usage: { active_runs: number; runs_today: number; tokens_today: number };
  limits: { max_active_runs: number; runs_per_day: number; tokens_per_day: number };
  /** When the daily counts start again (the next UTC midnight). */
  resets_at: string;
}

export async function getUserUsage(dependencies: { prisma: PrismaClient; clock: Clock }, userId: string): Promise<UserUsageView> {
  const pool = sqlPoolOf(dependencies.prisma);
  const day = quotaDay(dependencies.clock());
  const [limits] = await queryParsed(pool, `SELECT ${userLimitColumns(LIMIT_DEFAULTS)} FROM users AS u WHERE u.id = $1`, [userId], userLimitsRow);
  if (!limits) throw new NotFoundError("user", { user_id: userId });
  const usage = await selectUserUsage(pool, { userId, dayStart: day.start });
  return { usage, limits, resets_at: day.resetsAt.toISOString() };
}
