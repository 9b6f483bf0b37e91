import { encodeTimeCursor, parseTimeCursor } from "../lists/time-cursor.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { type AuditEntryRow, selectAuditEntries } from "../store/statements/audit-statements.ts";

/** An audit entry as GET /api/audit shows it. */
export interface AuditEntryView {
  id: string;
  at: string;
  actor_id: string | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export interface AuditPage {
  entries: AuditEntryView[];
  /** The cursor of the next (older) page; null on the last one. */
  next_before: string | null;
}

/** The audit log, newest first, `limit` at a time; `before` is the `next_before` of the previous page. */
export async function listAuditEntries(prisma: PrismaClient, options: { limit: number; before?: string | undefined }): Promise<AuditPage> {
  const after = options.before === undefined ? null : parseTimeCursor(options.before);
  const rows = await selectAuditEntries(sqlPoolOf(prisma), { after, limit: options.limit + 1 });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toAuditEntryView),
    next_before: rows.length > options.limit && last !== undefined ? encodeTimeCursor(last.at, last.id) : null,
  };
}

function toAuditEntryView(row: AuditEntryRow): AuditEntryView {
  return { id: row.id, at: row.at.toISOString(), actor_id: row.actor_id, action: row.action, target: row.target, details: row.details };
}
