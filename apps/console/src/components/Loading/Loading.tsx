import { classNames } from "../../lib/class-names.ts";
import styles from "./Loading.module.css";

/** A spinner with its words, announced politely. */
export function Loading({ label = "Loading…", inline = false }: { label?: string; inline?: boolean }) {
  return (
    <div role="status" className={classNames(styles.loading, inline && styles.inline)}>
      <span className={styles.spinner} aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
