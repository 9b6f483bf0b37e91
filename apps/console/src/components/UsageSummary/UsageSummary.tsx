import { useMyUsage } from "../../api/use-me.ts";
import { formatLimit, formatUsage } from "../../lib/format-usage.ts";
import styles from "./UsageSummary.module.css";

/** The signed-in user's usage against their limits: active runs, runs and model tokens today (UTC). */
export function UsageSummary() {
  const me = useMyUsage();
  if (!me.data) return null;
  const { usage, limits } = me.data;
  return (
    <section className={styles.usage} aria-label="Your usage today">
      <span title="runs running or handed to workers now, and the most you may have">
        {usage.active_runs}/{limits.max_active_runs} active
      </span>
      <span title={`runs created today (UTC); ${formatLimit(limits.runs_per_day)}`}>{formatUsage(usage.runs_today, limits.runs_per_day)} runs today</span>
      <span title={`model tokens of today's runs (UTC); ${formatLimit(limits.tokens_per_day)}`}>
        {formatUsage(usage.tokens_today, limits.tokens_per_day)} tokens
      </span>
    </section>
  );
}
