import type { ReactNode } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./RecordCard.module.css";

/** A labelled list of records (notes, tasks, memories). */
export function RecordList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ul className={styles.list} aria-label={label}>
      {children}
    </ul>
  );
}

/** One record: its title line with what is known about it, its actions, and its body. */
export function RecordCard({
  title,
  meta,
  actions,
  children,
  muted = false,
}: {
  title: ReactNode;
  meta?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  muted?: boolean;
}) {
  return (
    <li className={classNames(styles.card, muted && styles.muted)}>
      <div className={styles.row}>
        <div className={styles.titles}>
          <span className={styles.title}>{title}</span>
          {meta && <span className={styles.meta}>{meta}</span>}
        </div>
        {actions && <div className={styles.actions}>{actions}</div>}
      </div>
      {children}
    </li>
  );
}

/** Text a person or a model wrote, shown as text with its line breaks. */
export function RecordText({ children }: { children: string }) {
  return <p className={styles.text}>{children}</p>;
}

export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className={styles.tags} aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag} className={styles.tag}>
          {tag}
        </li>
      ))}
    </ul>
  );
}
