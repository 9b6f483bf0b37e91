import { type FormEvent, useState } from "react";
import type { UserChanges, UserWithUsage } from "../../api/types.ts";
import { Button } from "../Button/Button.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./UserLimitsEditor.module.css";

const FIELDS = [
  { key: "max_active_runs", label: "Max active runs" },
  { key: "runs_per_day", label: "Runs per day" },
  { key: "tokens_per_day", label: "Tokens per day" },
] as const;

type LimitKey = (typeof FIELDS)[number]["key"];

export interface UserLimitsEditorProps {
  user: UserWithUsage;
  busy: boolean;
  onSave(changes: UserChanges): void;
}

/**
 * A user's own limits: an empty field is the deployment's setting (shown as the placeholder), 0 in a
 * quota is "no quota". Saved together; the API checks the ranges and says which field is wrong.
 */
export function UserLimitsEditor({ user, busy, onSave }: UserLimitsEditorProps) {
  const initial = (key: LimitKey) => (user[key] === null ? "" : String(user[key]));
  const [values, setValues] = useState<Record<LimitKey, string>>({
    max_active_runs: initial("max_active_runs"),
    runs_per_day: initial("runs_per_day"),
    tokens_per_day: initial("tokens_per_day"),
  });
  const changed = FIELDS.some(({ key }) => values[key] !== initial(key));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const changes: UserChanges = {};
    for (const { key } of FIELDS) changes[key] = values[key].trim() === "" ? null : Number(values[key]);
    onSave(changes);
  };

  return (
    <form className={styles.form} onSubmit={submit} aria-label={`Limits of ${user.name}`}>
      {FIELDS.map(({ key, label }) => (
        <TextField
          key={key}
          label={`${label} of ${user.name}`}
          hideLabel
          inputMode="numeric"
          title={label}
          placeholder={user.limits[key] === 0 ? "none" : String(user.limits[key])}
          value={values[key]}
          onChange={(event) => setValues({ ...values, [key]: event.target.value })}
          fieldClassName={styles.field}
        />
      ))}
      <Button size="small" type="submit" busy={busy} disabled={!changed} aria-label={`Save limits of ${user.name}`}>
        Save
      </Button>
    </form>
  );
}
