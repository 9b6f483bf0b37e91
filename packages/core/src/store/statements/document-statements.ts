import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

// Documents (documents/document-store.ts): plain SQL, so the worker's tools (which have no Prisma)
// and the API's routes share one implementation.

export const documentRow = z.object({
  id: z.string(),
  userId: z.string(),
  title: z.string(),
  format: z.enum(["markdown", "text"]),
  content: z.string(),
  revision: z.number().int(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type DocumentRow = z.output<typeof documentRow>;
const DOCUMENT_COLUMNS = `id, user_id AS "userId", title, format::text AS format, content, revision, created_at AS "createdAt", updated_at AS "updatedAt"`;

export const documentRevisionRow = z.object({
  revision: z.number().int(),
  title: z.string(),
  content: z.string(),
  author: z.enum(["user", "agent"]),
  runId: z.string().nullable(),
  createdAt: z.date(),
});
export type DocumentRevisionRow = z.output<typeof documentRevisionRow>;

export interface DocumentAuthorship {
  author: "user" | "agent";
  runId: string | null;
}

/** A new document at revision 1 and its first revision, in one statement. */
export async function insertDocument(
  runner: SqlRunner,
  input: { id: string; userId: string; title: string; format: "markdown" | "text"; content: string } & DocumentAuthorship,
): Promise<DocumentRow> {
  const [row] = await queryParsed(
    runner,
    `WITH created AS (
  INSERT INTO documents (id, user_id, title, format, content, revision) VALUES ($1, $2, $3, $4::"DocumentFormat", $5, 1)
  RETURNING ${DOCUMENT_COLUMNS}
), revision AS (
  INSERT INTO document_revisions (document_id, revision, title, content, author, run_id, created_at)
  SELECT id, 1, title, content, $6::"DocumentAuthor", $7, "createdAt" FROM created
)
SELECT * FROM created`,
    [input.id, input.userId, input.title, input.format, input.content, input.author, input.runId],
    documentRow,
  );
  return row!;
}

/**
 * The change lands only if the document is still at `baseRevision` (a conditional update: of two
 * writes from the same base, exactly one matches); its revision is the next integer, and the revision
 * row is written in the same statement. Undefined: not the user's document, or not at that revision.
 */
export async function updateDocumentAtRevision(
  runner: SqlRunner,
  input: { id: string; userId: string; baseRevision: number; title: string | null; content: string | null } & DocumentAuthorship,
): Promise<DocumentRow | undefined> {
  const [row] = await queryParsed(
    runner,
    `WITH updated AS (
  UPDATE documents SET title = COALESCE($4, title), content = COALESCE($5, content), revision = revision + 1, updated_at = now()
  WHERE id = $1 AND user_id = $2 AND revision = $3
  RETURNING ${DOCUMENT_COLUMNS}
), revision AS (
  INSERT INTO document_revisions (document_id, revision, title, content, author, run_id, created_at)
  SELECT id, revision, title, content, $6::"DocumentAuthor", $7, "updatedAt" FROM updated
)
SELECT * FROM updated`,
    [input.id, input.userId, input.baseRevision, input.title, input.content, input.author, input.runId],
    documentRow,
  );
  return row;
}

export async function selectOwnDocument(runner: SqlRunner, input: { id: string; userId: string }): Promise<DocumentRow | undefined> {
  const [row] = await queryParsed(runner, `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 AND user_id = $2`, [input.id, input.userId], documentRow);
  return row;
}

/** The user's documents, most recently changed first; `query` matches title or content (case-insensitive). */
export async function selectOwnDocuments(runner: SqlRunner, input: { userId: string; query: string | null; limit: number }): Promise<DocumentRow[]> {
  return queryParsed(
    runner,
    `SELECT id, user_id AS "userId", title, format::text AS format, '' AS content, revision, created_at AS "createdAt", updated_at AS "updatedAt"
FROM documents
WHERE user_id = $1 AND ($2::text IS NULL OR strpos(lower(title), lower($2)) > 0 OR strpos(lower(content), lower($2)) > 0)
ORDER BY updated_at DESC, id
LIMIT $3`,
    [input.userId, input.query, input.limit],
    documentRow,
  );
}

export async function deleteOwnDocument(runner: SqlRunner, input: { id: string; userId: string }): Promise<boolean> {
  return (await queryRowCount(runner, `DELETE FROM documents WHERE id = $1 AND user_id = $2`, [input.id, input.userId])) > 0;
}

/** Every revision of the user's document, oldest first. */
export async function selectDocumentRevisions(runner: SqlRunner, input: { id: string; userId: string }): Promise<DocumentRevisionRow[]> {
  return queryParsed(
    runner,
    `SELECT r.revision, r.title, '' AS content, r.author::text AS author, r.run_id AS "runId", r.created_at AS "createdAt"
FROM document_revisions AS r JOIN documents AS d ON d.id = r.document_id
WHERE d.id = $1 AND d.user_id = $2
ORDER BY r.revision`,
    [input.id, input.userId],
    documentRevisionRow,
  );
}

export async function selectDocumentRevision(
  runner: SqlRunner,
  input: { id: string; userId: string; revision: number },
): Promise<DocumentRevisionRow | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT r.revision, r.title, r.content, r.author::text AS author, r.run_id AS "runId", r.created_at AS "createdAt"
FROM document_revisions AS r JOIN documents AS d ON d.id = r.document_id
WHERE d.id = $1 AND d.user_id = $2 AND r.revision = $3`,
    [input.id, input.userId, input.revision],
    documentRevisionRow,
  );
  return row;
}

/** The current revision of the user's document; undefined when there is none. */
export async function selectDocumentCurrentRevision(runner: SqlRunner, input: { id: string; userId: string }): Promise<number | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT revision FROM documents WHERE id = $1 AND user_id = $2`,
    [input.id, input.userId],
    z.object({ revision: z.number().int() }),
  );
  return row?.revision;
}
