import { z } from "zod";
import { DOCUMENT_MAX_CHARS, documentStoreOf, EXPORT_FORMATS, exportDocument, InvalidRequestError, toDocumentSummary, toDocumentView } from "@agentq/core";
import { ANSWERED, defineRoute } from "../http/api-route.ts";
import { documentListSchema, documentRevisionListSchema, documentSchema } from "../schemas/document-schemas.ts";

const title = z.string().trim().min(1, "a title is required").max(500, "a title is at most 500 characters");
const content = z.string().max(DOCUMENT_MAX_CHARS, `content is at most ${DOCUMENT_MAX_CHARS} characters`);

const createBody = z
  .object({ title, content, format: z.enum(["markdown", "text"]).optional().meta({ description: "default `markdown`" }) })
  .meta({ id: "CreateDocumentRequest" });

const updateBody = z
  .object({
    title: title.optional(),
    content: content.optional(),
    base_revision: z
      .number()
      .int()
      .min(1)
      .meta({ description: "the revision the change is based on; another than the current one is `409 revision_conflict`" }),
  })
  .meta({ id: "UpdateDocumentRequest" });

const listQuery = z.object({ query: z.string().max(500).optional().meta({ description: "text the title or content contains (case-insensitive)" }) });
const exportQuery = z.object({ format: z.enum(EXPORT_FORMATS).meta({ description: "markdown (as stored), html (raw HTML escaped) or pdf" }) });

const DOCUMENT_ID = "the document's id";
const NOT_FOUND = { 404: "`not_found`: no such document (or someone else's)" } as const;

function revisionNumber(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new InvalidRequestError("revision must be a positive integer", { field: "revision" });
  return Number(value);
}

/** RFC 6266: an ASCII fallback and the UTF-8 name. */
function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export const documentRoutes = [
  defineRoute({
    method: "post",
    path: "/api/documents",
    operationId: "createDocument",
    summary: "Create a document",
    description: "Revision 1, written by the caller (author `user`).",
    body: createBody,
    responses: { 201: { description: "the document", schema: documentSchema } },
    handler: async ({ dependencies, user, body }) => {
      const created = await documentStoreOf(dependencies.prisma).create(user.id, { ...body, author: "user", runId: null });
      return { status: 201, body: toDocumentView(created) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/documents",
    operationId: "listDocuments",
    summary: "The caller's documents",
    description: "Most recently changed first, without their content; at most 500.",
    query: listQuery,
    responses: { 200: { description: "the documents", schema: documentListSchema } },
    handler: async ({ dependencies, user, query }) => {
      const rows = await documentStoreOf(dependencies.prisma).list(user.id, query.query);
      return { status: 200, body: { documents: rows.map((row) => toDocumentSummary(row)) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/documents/:id",
    operationId: "getDocument",
    summary: "A document with its content",
    parameters: { id: DOCUMENT_ID },
    responses: { 200: { description: "the document at its current revision", schema: documentSchema } },
    errors: NOT_FOUND,
    handler: async ({ dependencies, user, params }) => {
      return { status: 200, body: toDocumentView(await documentStoreOf(dependencies.prisma).get(user.id, params.id)) };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/documents/:id",
    operationId: "updateDocument",
    summary: "Change a document's title and/or content",
    description:
      "Only if the document is still at `base_revision`: then its revision is the next integer (author `user`). Otherwise " +
      "`409 revision_conflict` with `details.current_revision`, and nothing changed.",
    parameters: { id: DOCUMENT_ID },
    body: updateBody,
    responses: { 200: { description: "the document at its new revision", schema: documentSchema } },
    errors: { ...NOT_FOUND, 409: "`revision_conflict`: the document is no longer at `base_revision` (`details.current_revision`)" },
    handler: async ({ dependencies, user, params, body }) => {
      const updated = await documentStoreOf(dependencies.prisma).update(user.id, params.id, {
        baseRevision: body.base_revision,
        title: body.title,
        content: body.content,
        author: "user",
        runId: null,
      });
      return { status: 200, body: toDocumentView(updated) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/documents/:id",
    operationId: "deleteDocument",
    summary: "Delete a document and all its revisions",
    parameters: { id: DOCUMENT_ID },
    responses: { 204: { description: "deleted" } },
    errors: NOT_FOUND,
    handler: async ({ dependencies, user, params }) => {
      await documentStoreOf(dependencies.prisma).delete(user.id, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/documents/:id/revisions",
    operationId: "listDocumentRevisions",
    summary: "A document's revisions, oldest first",
    parameters: { id: DOCUMENT_ID },
    responses: { 200: { description: "every revision kept", schema: documentRevisionListSchema } },
    errors: NOT_FOUND,
    handler: async ({ dependencies, user, params }) => {
      const revisions = await documentStoreOf(dependencies.prisma).revisions(user.id, params.id);
      return {
        status: 200,
        body: {
          revisions: revisions.map((row) => ({ revision: row.revision, created_at: row.createdAt.toISOString(), author: row.author, run_id: row.runId })),
        },
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/documents/:id/revisions/:revision",
    operationId: "getDocumentRevision",
    summary: "A document as it was at one revision",
    parameters: { id: DOCUMENT_ID, revision: "the revision number" },
    responses: { 200: { description: "the document at that revision", schema: documentSchema } },
    errors: { 404: "`not_found`: no such document (or someone else's), or no such revision" },
    handler: async ({ dependencies, user, params }) => {
      const document = await documentStoreOf(dependencies.prisma).atRevision(user.id, params.id, revisionNumber(params.revision));
      return { status: 200, body: toDocumentView(document) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/documents/:id/export",
    operationId: "exportDocument",
    summary: "Download a document as Markdown, HTML or PDF",
    description:
      "The current revision as a file (`Content-Disposition: attachment`). HTML escapes any raw HTML of the source and keeps no " +
      "`javascript:` link; the PDF is made in-process and reads no file or URL the document names. A download link cannot set " +
      "headers: the token may come as `?token=`.",
    queryToken: true,
    parameters: { id: DOCUMENT_ID },
    query: exportQuery,
    responses: {
      200: {
        description: "the file",
        alternatives: {
          "text/markdown": { schema: z.string() },
          "text/html": { schema: z.string() },
          "application/pdf": { schema: z.string().meta({ format: "binary" }) },
        },
      },
    },
    errors: NOT_FOUND,
    handler: async ({ dependencies, user, params, query, response }): Promise<typeof ANSWERED> => {
      const document = await documentStoreOf(dependencies.prisma).get(user.id, params.id);
      const exported = await exportDocument(document, query.format);
      response.status(200);
      response.setHeader("Content-Type", exported.contentType);
      response.setHeader("Content-Disposition", attachment(exported.filename));
      response.setHeader("X-Content-Type-Options", "nosniff");
      response.setHeader("Cache-Control", "private, no-store");
      response.end(exported.body);
      return ANSWERED;
    },
  }),
];
