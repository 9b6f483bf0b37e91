import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Settings, SettingValue } from "../../api/types.ts";
import type { SettingRange } from "../../api/use-setting-ranges.ts";
import { useUpdateSettings } from "../../api/use-settings.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { CheckboxField } from "../Form/CheckboxField.tsx";
import { TextAreaField } from "../Form/TextAreaField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./SettingsForm.module.css";

type Draft = Record<string, string | boolean>;

function toDraft(settings: Settings): Draft {
  return Object.fromEntries(
    Object.entries(settings).map(([name, value]) => [name, typeof value === "boolean" ? value : Array.isArray(value) ? value.join("\n") : String(value ?? "")]),
  );
}

function fromDraft(original: SettingValue, draft: string | boolean): SettingValue {
  if (typeof original === "boolean") return Boolean(draft);
  if (typeof original === "number") return Number(draft);
  if (Array.isArray(original))
    return String(draft)
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
  return String(draft);
}

function same(a: SettingValue, b: SettingValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function formatRange(range: SettingRange | undefined): string | undefined {
  if (range?.min === undefined || range.max === undefined) return undefined;
  const text = `Range ${range.min.toLocaleString()} – ${range.max.toLocaleString()}`;
  return typeof range.default === "number" ? `${text} · default ${range.default.toLocaleString()}` : text;
}

/** Every setting with its value; saving sends what changed and shows what was stored (clamped to its range). */
export function SettingsForm({ settings, ranges }: { settings: Settings; ranges: Record<string, SettingRange> | undefined }) {
  const update = useUpdateSettings();
  const [draft, setDraft] = useState(() => toDraft(settings));
  const [clamped, setClamped] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const names = Object.keys(settings).sort();
  const changes: Settings = {};
  for (const name of names) {
    const value = fromDraft(settings[name] ?? null, draft[name] ?? "");
    if (!same(value, settings[name] ?? null)) changes[name] = value;
  }
  const invalid = Object.entries(changes).filter(([, value]) => typeof value === "number" && !Number.isFinite(value));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const stored = await update.mutateAsync(changes);
    setClamped(
      Object.entries(changes)
        .filter(([name, value]) => typeof value === "number" && stored[name] !== value)
        .map(([name, value]) => `${name}: ${value} was stored as ${stored[name]} (${formatRange(ranges?.[name])?.toLowerCase() ?? "its range is limited"})`),
    );
    setDraft(toDraft(stored));
    setSaved(true);
  }

  return (
    <form noValidate className={styles.form} onSubmit={(event) => void submit(event).catch(() => {})}>
      <div className={styles.fields}>
        {names.map((name) => {
          const value = settings[name];
          const current = draft[name];
          if (typeof value === "boolean") {
            return (
              <CheckboxField
                key={name}
                label={<span className={styles.name}>{name}</span>}
                checked={current === true}
                onChange={(event) => setDraft({ ...draft, [name]: event.target.checked })}
                fieldClassName={styles.checkbox}
              />
            );
          }
          if (Array.isArray(value)) {
            return (
              <TextAreaField
                key={name}
                label={name}
                hint="One entry per line."
                monospace
                rows={3}
                value={String(current ?? "")}
                onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
                fieldClassName={styles.wide}
              />
            );
          }
          return (
            <TextField
              key={name}
              label={name}
              type={typeof value === "number" ? "number" : "text"}
              inputMode={typeof value === "number" ? "numeric" : undefined}
              hint={formatRange(ranges?.[name])}
              min={ranges?.[name]?.min}
              max={ranges?.[name]?.max}
              value={String(current ?? "")}
              onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
              className={styles.number}
            />
          );
        })}
      </div>
      {invalid.length > 0 && <Alert>{invalid.map(([name]) => `${name} must be a number.`).join(" ")}</Alert>}
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      {saved && clamped.length === 0 && <Alert tone="success">Settings saved.</Alert>}
      {saved && clamped.length > 0 && (
        <Alert tone="warning" title="Saved, with values brought into range">
          <ul className={styles.clamped}>
            {clamped.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </Alert>
      )}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" busy={update.isPending} disabled={Object.keys(changes).length === 0 || invalid.length > 0}>
          Save settings
        </Button>
        {Object.keys(changes).length > 0 && (
          <span className={styles.pending}>
            {Object.keys(changes).length} unsaved {Object.keys(changes).length === 1 ? "change" : "changes"}
          </span>
        )}
      </div>
    </form>
  );
}
