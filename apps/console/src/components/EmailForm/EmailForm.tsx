import { type FormEvent, useState } from "react";
import type { EmailFields } from "../../api/use-emails.ts";
import { Button } from "../Button/Button.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./EmailForm.module.css";

export interface EmailFormProps {
  /** The draft being edited; undefined: a new draft. */
  initial?: EmailFields;
  busy: boolean;
  onSave(fields: EmailFields): void;
  onCancel?: () => void;
}

/** "a@x.org, b@y.org" → ["a@x.org", "b@y.org"] (commas, semicolons or spaces between addresses). */
export function parseAddresses(text: string): string[] {
  return text
    .split(/[,;\s]+/)
    .map((address) => address.trim())
    .filter((address) => address !== "");
}

/** The fields of a draft: recipients, subject, body. Addresses are checked by the API (it names a bad field). */
export function EmailForm({ initial, busy, onSave, onCancel }: EmailFormProps) {
  // The parent gives each draft (and each new one) its own `key`, so the fields start from `initial`.
  const [to, setTo] = useState(initial?.to.join(", ") ?? "");
  const [cc, setCc] = useState(initial?.cc.join(", ") ?? "");
  const [subject, setSubject] = useState(initial?.subject ?? "");
  const [body, setBody] = useState(initial?.body ?? "");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ to: parseAddresses(to), cc: parseAddresses(cc), subject, body });
  };

  return (
    <form className={styles.form} onSubmit={submit} aria-label={initial ? "Edit draft" : "New draft"}>
      <div className={styles.recipients}>
        <TextField label="To" value={to} onChange={(event) => setTo(event.target.value)} required placeholder="name@example.com" autoComplete="off" />
        <TextField label="Cc" value={cc} onChange={(event) => setCc(event.target.value)} placeholder="optional" autoComplete="off" />
      </div>
      <TextField label="Subject" value={subject} onChange={(event) => setSubject(event.target.value)} maxLength={998} />
      <TextAreaField label="Body" value={body} onChange={(event) => setBody(event.target.value)} rows={8} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" busy={busy} disabled={parseAddresses(to).length === 0}>
          {initial ? "Save changes" : "Save draft"}
        </Button>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
      </div>
    </form>
  );
}
