import { z } from "zod";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { queryParsed } from "../store/sql-pool.ts";
import { type NumericSettingName, settingsFromRows } from "./agent-settings.ts";

const settingRow = z.object({ key: z.string(), value: z.unknown() });

/**
 * One numeric setting (stored, clamped, else its default) in one plain SQL query: for paths that
 * read it often (the API's rate limit) and should not load Prisma's query compiler for it.
 */
export async function readNumericSetting(prisma: PrismaClient, name: NumericSettingName): Promise<number> {
  const rows = await queryParsed(sqlPoolOf(prisma), "SELECT key, value FROM settings WHERE key = $1", [name], settingRow);
  return settingsFromRows(rows)[name];
}
