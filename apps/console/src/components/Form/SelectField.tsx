import type { ReactNode, SelectHTMLAttributes } from "react";
import { classNames } from "../../lib/class-names.ts";
import { Field } from "./Field.tsx";
import styles from "./Form.module.css";

export interface SelectOption {
  value: string;
  label: string;
}

export interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> {
  label: string;
  options: SelectOption[];
  hint?: ReactNode;
  error?: string | null;
  hideLabel?: boolean;
  fieldClassName?: string;
}

export function SelectField({ label, options, hint, error, hideLabel, fieldClassName, className, ...select }: SelectFieldProps) {
  return (
    <Field label={label} hint={hint} error={error} hideLabel={hideLabel} className={fieldClassName}>
      {({ id, describedBy, invalid }) => (
        <select
          {...select}
          id={id}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          className={classNames(styles.input, styles.select, className)}
        >
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
