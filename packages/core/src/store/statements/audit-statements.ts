import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

export interface AuditEntryInsert {
  id: string;
  actorId: string | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

/** One audit entry, in the caller's transaction when it passes one: the change and its record commit together. */
export async function insertAuditEntry(runner: SqlRunner, entry: AuditEntryInsert): Promise<void> {
  await queryRowCount(runner, "INSERT INTO audit_entries (id, actor_id, action, target, details) VALUES ($1, $2, $3, $4, $5::jsonb)", [
    entry.id,
    entry.actorId,
    entry.action,
    entry.target,
    JSON.stringify(entry.details),
  ]);
}

const auditRow = z.object({
  id: z.string(),
  at: z.date(),
  actor_id: z.string().nullable(),
  action: z.string(),
  target: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export type AuditEntryRow = z.output<typeof auditRow>;

/** Newest first; `after` (exclusive) is the last entry of the previous page. */
export async function selectAuditEntries(runner: SqlRunner, input: { after: { at: Date; id: string } | null; limit: number }): Promise<AuditEntryRow[]> {
  return queryParsed(
    runner,
    `SELECT id, at, actor_id, action, target, details FROM audit_entries
     WHERE $1::timestamptz IS NULL OR (at, id) < ($1::timestamptz, $2::text)
     ORDER BY at DESC, id DESC LIMIT $3`,
    [input.after?.at ?? null, input.after?.id ?? null, input.limit],
    auditRow,
  );
}
