import type { InputHTMLAttributes, ReactNode } from "react";
import { classNames } from "../../lib/class-names.ts";
import { Field } from "./Field.tsx";
import styles from "./Form.module.css";

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  aside?: ReactNode;
  hideLabel?: boolean;
  fieldClassName?: string;
}

export function TextField({ label, hint, error, aside, hideLabel, fieldClassName, className, ...input }: TextFieldProps) {
  return (
    <Field label={label} hint={hint} error={error} aside={aside} hideLabel={hideLabel} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <input
          type="text"
          {...input}
          id={id}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          className={classNames(styles.input, className)}
        />
      )}
    </Field>
  );
}
