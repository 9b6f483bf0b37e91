import type { ReactNode, TextareaHTMLAttributes } from "react";
import { classNames } from "../../lib/class-names.ts";
import { Field } from "./Field.tsx";
import styles from "./Form.module.css";

export interface TextAreaFieldProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id"> {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  hideLabel?: boolean;
  monospace?: boolean;
  fieldClassName?: string;
}

export function TextAreaField({ label, hint, error, hideLabel, monospace, fieldClassName, className, ...textarea }: TextAreaFieldProps) {
  return (
    <Field label={label} hint={hint} error={error} hideLabel={hideLabel} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <textarea
          {...textarea}
          id={id}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          className={classNames(styles.input, styles.textarea, monospace && styles.monospace, className)}
        />
      )}
    </Field>
  );
}
