import type pg from "pg";
import { ConflictError, NotFoundError } from "../errors/agentq-error.ts";
import { generateId as defaultGenerateId, type GenerateId } from "../ids.ts";
import {
  type DocumentAuthorship,
  type DocumentRevisionRow,
  type DocumentRow,
  deleteOwnDocument,
  insertDocument,
  selectDocumentCurrentRevision,
  selectDocumentRevision,
  selectDocumentRevisions,
  selectOwnDocument,
  selectOwnDocuments,
  updateDocumentAtRevision,
} from "../store/statements/document-statements.ts";
import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import type { SqlRunner } from "../store/sql-pool.ts";

export type { DocumentAuthorship, DocumentRevisionRow, DocumentRow };
export type DocumentFormat = DocumentRow["format"];

/** Largest document content: 5 MiB of text (the API's body limit allows it). */
export const DOCUMENT_MAX_CHARS = 5 * 1024 * 1024;
/** Most documents one list answers. */
export const DOCUMENT_LIST_LIMIT = 500;

/** A write based on a revision that is no longer current: nothing changed (API.md, "Documents"). */
export class RevisionConflictError extends ConflictError {
  readonly currentRevision: number;
  constructor(documentId: string, baseRevision: number, currentRevision: number) {
    super("revision_conflict", `the document is at revision ${currentRevision}, not ${baseRevision}: read it again and base the change on it`, {
      document_id: documentId,
      base_revision: baseRevision,
      current_revision: currentRevision,
    });
    this.currentRevision = currentRevision;
  }
}

function documentNotFound(id: string): NotFoundError {
  return new NotFoundError("document", { document_id: id });
}

/**
 * A user's documents, every revision kept (API.md, "Documents"). Plain SQL over a pg pool: the API
 * (its Prisma client's pool) and the worker's tools use the same code. Someone else's document is
 * "not found" everywhere.
 */
export class DocumentStore {
  readonly #runner: SqlRunner;
  readonly #generateId: GenerateId;

  constructor(runner: pg.Pool | SqlRunner, generateId: GenerateId = defaultGenerateId) {
    this.#runner = runner;
    this.#generateId = generateId;
  }

  create(userId: string, input: { title: string; content: string; format?: DocumentFormat | undefined } & DocumentAuthorship): Promise<DocumentRow> {
    return insertDocument(this.#runner, {
      id: this.#generateId("doc"),
      userId,
      title: input.title,
      format: input.format ?? "markdown",
      content: input.content,
      author: input.author,
      runId: input.runId,
    });
  }

  list(userId: string, query?: string | undefined): Promise<DocumentRow[]> {
    return selectOwnDocuments(this.#runner, { userId, query: query?.trim() ? query.trim() : null, limit: DOCUMENT_LIST_LIMIT });
  }

  async get(userId: string, id: string): Promise<DocumentRow> {
    const row = await selectOwnDocument(this.#runner, { id, userId });
    if (!row) throw documentNotFound(id);
    return row;
  }

  async currentRevision(userId: string, id: string): Promise<number | undefined> {
    return selectDocumentCurrentRevision(this.#runner, { id, userId });
  }

  /**
   * Changes title and/or content if the document is still at `baseRevision`: one conditional
   * statement, so of two concurrent writes from the same base exactly one lands; the other is a
   * RevisionConflictError naming the current revision, and changed nothing.
   */
  async update(
    userId: string,
    id: string,
    input: { baseRevision: number; title?: string | undefined; content?: string | undefined } & DocumentAuthorship,
  ): Promise<DocumentRow> {
    const updated = await updateDocumentAtRevision(this.#runner, {
      id,
      userId,
      baseRevision: input.baseRevision,
      title: input.title ?? null,
      content: input.content ?? null,
      author: input.author,
      runId: input.runId,
    });
    if (updated) return updated;
    const current = await this.currentRevision(userId, id);
    if (current === undefined) throw documentNotFound(id);
    throw new RevisionConflictError(id, input.baseRevision, current);
  }

  async delete(userId: string, id: string): Promise<void> {
    if (!(await deleteOwnDocument(this.#runner, { id, userId }))) throw documentNotFound(id);
  }

  async revisions(userId: string, id: string): Promise<DocumentRevisionRow[]> {
    const revisions = await selectDocumentRevisions(this.#runner, { id, userId });
    if (revisions.length === 0) throw documentNotFound(id);
    return revisions;
  }

  /** The document as it was at `revision` (its title and content then; `updatedAt` is that revision's time). */
  async atRevision(userId: string, id: string, revision: number): Promise<DocumentRow> {
    const document = await this.get(userId, id);
    if (revision === document.revision) return document;
    const row = await selectDocumentRevision(this.#runner, { id, userId, revision });
    if (!row) throw new NotFoundError("revision", { document_id: id, revision });
    return { ...document, title: row.title, content: row.content, revision: row.revision, updatedAt: row.createdAt };
  }
}

/** The API's shape of a document (API.md `Document`) in a list: without its content. */
export function toDocumentSummary(row: DocumentRow) {
  return {
    id: row.id,
    title: row.title,
    format: row.format,
    revision: row.revision,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The API's shape of a document read: with its content. */
export function toDocumentView(row: DocumentRow) {
  return { ...toDocumentSummary(row), content: row.content };
}

/** The document store over a Prisma client's pg pool (the API's and the worker's one pool). */
export function documentStoreOf(prisma: PrismaClient): DocumentStore {
  return new DocumentStore(sqlPoolOf(prisma));
}
