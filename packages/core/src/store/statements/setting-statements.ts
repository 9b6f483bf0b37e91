import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

const settingRow = z.object({ key: z.string(), value: z.unknown() });

/** Every stored setting (key, JSON value); settings/agent-settings.ts checks each value. */
export async function selectSettingRows(runner: SqlRunner): Promise<z.output<typeof settingRow>[]> {
  return queryParsed(runner, "SELECT key, value FROM settings", [], settingRow);
}

/** Stores each (key, value), replacing what was there. */
export async function upsertSettingRows(runner: SqlRunner, entries: readonly (readonly [string, unknown])[]): Promise<void> {
  if (entries.length === 0) return;
  await queryRowCount(
    runner,
    `INSERT INTO settings (key, value, updated_at)
     SELECT entry.key, entry.value, now() FROM jsonb_each($1::jsonb) AS entry(key, value)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [JSON.stringify(Object.fromEntries(entries))],
  );
}
