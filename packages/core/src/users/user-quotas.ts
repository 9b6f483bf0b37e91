import { AgentqError } from "../errors/agentq-error.ts";

/** The daily quotas (API.md "Team operations"): settings `user_runs_per_day`, `user_tokens_per_day`. */
export type QuotaName = "runs_per_day" | "tokens_per_day";

/** The UTC day `now` falls in: quotas count what the user's runs created in it used. */
export function quotaDay(now: Date): { start: Date; resetsAt: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, resetsAt: new Date(start.getTime() + 24 * 60 * 60 * 1000) };
}

/** A daily quota is used up: nothing was created (429 `quota_exceeded`). */
export class QuotaExceededError extends AgentqError {
  constructor(quota: QuotaName, limit: number, resetsAt: Date) {
    super("quota_exceeded", `the daily quota ${quota} (${limit}) is used up; it resets at ${resetsAt.toISOString()}`, {
      quota,
      limit,
      resets_at: resetsAt.toISOString(),
    });
  }
}

/**
 * Which quota `usage` has reached, if any (0 = no quota). A run is refused once the day's runs
 * reached the limit, or once the day's tokens reached theirs.
 */
export function exceededQuota(
  limits: { runs_per_day: number; tokens_per_day: number },
  usage: { runs_today: number; tokens_today: number },
): { quota: QuotaName; limit: number } | null {
  if (limits.runs_per_day > 0 && usage.runs_today >= limits.runs_per_day) return { quota: "runs_per_day", limit: limits.runs_per_day };
  if (limits.tokens_per_day > 0 && usage.tokens_today >= limits.tokens_per_day) return { quota: "tokens_per_day", limit: limits.tokens_per_day };
  return null;
}
