import { generateId } from "../ids.ts";
import { type AuditEntryInsert, insertAuditEntry } from "../store/statements/audit-statements.ts";
import type { SqlRunner } from "../store/sql-pool.ts";

/** What the audit log records (API.md "Administration, MCP and services"). */
export const AUDIT_ACTIONS = [
  "approval.decided",
  "settings.updated",
  "user.created",
  "user.updated",
  "user.token_rotated",
  "mcp_server.added",
  "mcp_server.removed",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntryInput {
  /** Who did it; null for the system (a deployment's bootstrap). */
  actorId: string | null;
  action: AuditAction;
  /** What was changed: `approval:<id>`, `settings`, `user:<id>`, `mcp_server:<name>`. */
  target: string;
  /** What changed, never a secret (tokens, MCP env and headers are named, not shown). */
  details?: Record<string, unknown>;
}

/**
 * Appends an entry. Pass the transaction that makes the change so that both commit or neither does;
 * the audit log never says something happened that did not, nor misses what did.
 */
export async function recordAuditEntry(runner: SqlRunner, entry: AuditEntryInput, options: { generateId?: (prefix: string) => string } = {}): Promise<void> {
  await insertAuditEntry(runner, auditEntryRow(entry, options));
}

/**
 * The row of an entry, with its new id: for a change written by one statement with its record (an
 * approval decision's, in the run's commit statement: store/run-statement.ts `auditEntry`).
 */
export function auditEntryRow(entry: AuditEntryInput, options: { generateId?: (prefix: string) => string } = {}): AuditEntryInsert {
  return {
    id: (options.generateId ?? generateId)("aud"),
    actorId: entry.actorId,
    action: entry.action,
    target: entry.target,
    details: entry.details ?? {},
  };
}
