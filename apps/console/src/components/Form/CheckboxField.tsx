import { type InputHTMLAttributes, type ReactNode, useId } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Form.module.css";

export interface CheckboxFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type"> {
  label: ReactNode;
  hint?: ReactNode;
  fieldClassName?: string;
}

/** A checkbox styled as a switch; it stays a native checkbox for keyboards and screen readers. */
export function CheckboxField({ label, hint, fieldClassName, className, ...input }: CheckboxFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={classNames(styles.checkboxField, fieldClassName)}>
      <input {...input} type="checkbox" id={id} aria-describedby={hintId} className={classNames(styles.switch, className)} />
      <label htmlFor={id} className={styles.checkboxLabel}>
        {label}
        {hint && (
          <span id={hintId} className={styles.checkboxHint}>
            {hint}
          </span>
        )}
      </label>
    </div>
  );
}
