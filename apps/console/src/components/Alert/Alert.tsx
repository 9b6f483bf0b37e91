import type { ReactNode } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Alert.module.css";

export interface AlertProps {
  tone?: "error" | "warning" | "info" | "success";
  title?: string;
  children: ReactNode;
  actions?: ReactNode;
  className?: string;
}

/** Errors and warnings are announced at once (role alert); information politely (role status). */
export function Alert({ tone = "error", title, children, actions, className }: AlertProps) {
  return (
    <div role={tone === "error" || tone === "warning" ? "alert" : "status"} className={classNames(styles.alert, styles[tone], className)}>
      <div className={styles.body}>
        {title && <p className={styles.title}>{title}</p>}
        <div className={styles.text}>{children}</div>
      </div>
      {actions && <div className={styles.actions}>{actions}</div>}
    </div>
  );
}
