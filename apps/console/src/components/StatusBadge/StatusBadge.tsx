import { statusLabel } from "../../api/derive-run-status.ts";
import type { RunStatus } from "../../api/types.ts";
import { classNames } from "../../lib/class-names.ts";
import styles from "./StatusBadge.module.css";

/** A run status as a coloured pill with its words (the colour is never the only signal). */
export function StatusBadge({ status, prefix, className }: { status: RunStatus; prefix?: string; className?: string }) {
  return (
    <span className={classNames(styles.badge, styles[status], className)}>
      <span className={styles.dot} aria-hidden="true" />
      {prefix}
      {statusLabel(status)}
    </span>
  );
}
