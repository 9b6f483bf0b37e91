import { z } from "zod";
import { InvalidRequestError, NotFoundError } from "../errors/agentq-error.ts";
import { queryParsed, type SqlRunner } from "../store/sql-pool.ts";

// The fields the personal-data kinds share (API.md "Personal data"): one zod schema per field, used by
// the REST bodies and the tools' parameters alike, so both refuse the same input with the same words.

/** A title: one line of text, trimmed. */
export const titleField = () => z.string().trim().min(1, "title must not be empty").max(500);

/** A tag: a short word or phrase; lists are de-duplicated on write. */
export const tagsField = () => z.array(z.string().trim().min(1).max(100)).max(50);

/** An ISO-8601 time with `Z` or an offset (`2026-12-14T09:00:00+01:00`); stored in UTC. */
export const isoTimeField = () => z.iso.datetime({ offset: true, message: "must be an ISO-8601 time with Z or an offset (2026-12-14T09:00:00+01:00)" });

/** A time as the API writes it: ISO-8601 UTC with milliseconds. */
export function isoUtc(value: Date): string;
export function isoUtc(value: Date | null): string | null;
export function isoUtc(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

export function uniqueTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}

/** `%` and `_` match themselves in an ILIKE pattern built from user text. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** An id given by a caller: its text, bounded (an overlong id is simply not found). */
export const idField = (description: string) => z.string().min(1).max(200).describe(description);

/** A column's new value computed by Postgres from constant SQL (never from caller text). */
export interface SqlExpression {
  sql: string;
}

function isSqlExpression(value: unknown): value is SqlExpression {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date) && "sql" in value;
}

/**
 * Updates the named columns of the caller's own row and returns it: `changes` holds only the fields the
 * request named (PATCH changes nothing else). Someone else's row, or none, is NotFoundError.
 */
export async function updateOwnRow<Row extends z.ZodObject>(
  runner: SqlRunner,
  input: { table: string; resource: string; columns: string; userId: string; id: string; changes: Record<string, unknown>; row: Row },
): Promise<z.output<Row>> {
  const entries = Object.entries(input.changes).filter(([, value]) => value !== undefined);
  const values: unknown[] = [];
  const assignments = entries.map(([column, value]) => {
    if (isSqlExpression(value)) return `${column} = ${value.sql}`;
    values.push(value);
    return `${column} = $${values.length + 2}`;
  });
  assignments.push("updated_at = now()");
  const [row] = await queryParsed(
    runner,
    `UPDATE ${input.table} SET ${assignments.join(", ")} WHERE id = $1 AND user_id = $2 RETURNING ${input.columns}`,
    [input.id, input.userId, ...values],
    input.row,
  );
  if (!row) throw new NotFoundError(input.resource);
  return row;
}

/** Deletes the caller's own row; someone else's, or none, is NotFoundError. */
export async function deleteOwnRow(runner: SqlRunner, input: { table: string; resource: string; userId: string; id: string }): Promise<void> {
  const { rowCount } = await runner.query(`DELETE FROM ${input.table} WHERE id = $1 AND user_id = $2`, [input.id, input.userId]);
  if (!rowCount) throw new NotFoundError(input.resource);
}

/** Bad input found after parsing (an end before its start): 400 naming the field. */
export function invalidField(field: string, message: string): InvalidRequestError {
  return new InvalidRequestError(`${field}: ${message}`, { field });
}
