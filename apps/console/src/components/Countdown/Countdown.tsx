import { useEffect, useState } from "react";
import { classNames } from "../../lib/class-names.ts";
import { formatDateTime, formatDuration } from "../../lib/format.ts";
import styles from "./Countdown.module.css";

/** Under five minutes left, the countdown turns to a warning colour. */
const URGENT_MS = 5 * 60_000;

/** Time left until `until`, ticking every second; "Expired" once it has passed. Not a live region: it would talk every second. */
export function Countdown({ until, label = "Expires in" }: { until: string; label?: string }) {
  const deadline = new Date(until).getTime();
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const remaining = deadline - now;
  if (Number.isNaN(deadline)) return null;
  return (
    <time dateTime={until} title={formatDateTime(until)} className={classNames(styles.countdown, remaining < URGENT_MS && styles.urgent)}>
      {remaining <= 0 ? "Expired" : `${label} ${formatDuration(remaining)}`}
    </time>
  );
}
