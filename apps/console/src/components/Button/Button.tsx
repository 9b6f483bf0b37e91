import type { ButtonHTMLAttributes } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Button.module.css";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "small" | "normal";
  /** Shows a spinner and disables the button while an action is under way. */
  busy?: boolean;
}

export function Button({ variant = "secondary", size = "normal", busy = false, className, disabled, children, type = "button", ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={classNames(styles.button, styles[variant], size === "small" && styles.small, className)}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span className={styles.spinner} aria-hidden="true" />}
      {children}
    </button>
  );
}
