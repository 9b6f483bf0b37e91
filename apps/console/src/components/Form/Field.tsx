import { type ReactNode, useId } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Form.module.css";

export interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  /** Shown beside the label but not part of the accessible name (a range, a unit). */
  aside?: ReactNode;
  className?: string;
  hideLabel?: boolean;
  children: (control: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}

/** A label, the control, a hint and an inline error, wired together with ids. */
export function Field({ label, hint, error, aside, className, hideLabel = false, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={classNames(styles.field, className)}>
      <div className={classNames(styles.labelRow, hideLabel && "visually-hidden")}>
        <label htmlFor={id} className={styles.label}>
          {label}
        </label>
        {aside && <span className={styles.aside}>{aside}</span>}
      </div>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint && (
        <p id={hintId} className={styles.hint}>
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className={styles.error} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
