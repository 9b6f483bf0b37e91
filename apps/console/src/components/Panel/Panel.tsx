import { type ReactNode, useId } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Panel.module.css";

export interface PanelProps {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  /** Heading level of the title: 2 on a page, 3 inside a section. */
  level?: 2 | 3;
  padded?: boolean;
}

/** A bordered surface; with a title it is a named region. */
export function Panel({ title, actions, children, className, level = 2, padded = true }: PanelProps) {
  const headingId = useId();
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section className={classNames(styles.panel, className)} aria-labelledby={title ? headingId : undefined}>
      {(title || actions) && (
        <div className={styles.header}>
          {title && (
            <Heading id={headingId} className={styles.title}>
              {title}
            </Heading>
          )}
          {actions && <div className={styles.actions}>{actions}</div>}
        </div>
      )}
      <div className={classNames(padded && styles.body)}>{children}</div>
    </section>
  );
}
