import { sqlPoolOf } from "../../store/create-prisma-client.ts";
import { selectUserDailyUsage } from "../../store/statements/admission-statements.ts";
import { quotaDay } from "../../users/user-quotas.ts";
import type { RunError } from "../run-error.ts";
import type { RunExecution } from "./run-execution.ts";

/**
 * The user's daily token quota (`tokens_per_day`), checked before each round after the first: a
 * run whose previous round crossed it (or another run of the user did) ends here, after that round
 * finished, `failed` with `quota_exceeded`. What is staged is committed first, so the tokens of the
 * round just finished are counted. No quota: no query.
 */
export async function checkTokenQuota(execution: RunExecution): Promise<{ error: RunError } | null> {
  const { context, dependencies } = execution;
  const limit = context.tokensPerDay;
  if (limit <= 0 || context.run.rounds === 0) return null;
  await execution.flush();
  const day = quotaDay(dependencies.clock());
  const usage = await selectUserDailyUsage(sqlPoolOf(dependencies.prisma), {
    userId: context.run.userId,
    dayStart: day.start,
    countRunsUpTo: 0,
    sumTokens: true,
  });
  if (usage.tokens_today < limit) return null;
  return {
    error: {
      code: "quota_exceeded",
      message: `the user's daily token quota (${limit}) is used up (${usage.tokens_today} today); it resets at ${day.resetsAt.toISOString()}`,
    },
  };
}
