/**
 * How long after each failed attempt the next one is made (API.md: the first retry within 60 s, at
 * least 5 attempts over at least 10 minutes). Eight attempts over about 4 h 45 min: a receiver that
 * is down for a deploy or an afternoon still gets the event. The default of
 * `WebhookDeliveryDependencies.retryDelaysMs`.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000] as const;

/** Attempts in all on the default schedule: the first one and a retry after each delay. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/**
 * The delay before the attempt after `attemptsMade` attempts, with up to 10 % added at random so the
 * retries of many deliveries to one endpoint that failed together do not all arrive together; null
 * when none is left. `delaysMs` is the schedule (default WEBHOOK_RETRY_DELAYS_MS): one delay per retry.
 */
export function webhookRetryDelayMs(
  attemptsMade: number,
  random: () => number = Math.random,
  delaysMs: readonly number[] = WEBHOOK_RETRY_DELAYS_MS,
): number | null {
  const base = delaysMs[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + 0.1 * random()));
}
