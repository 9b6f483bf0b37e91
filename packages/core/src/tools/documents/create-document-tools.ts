import { z } from "zod";
import { DOCUMENT_MAX_CHARS, type DocumentStore, RevisionConflictError } from "../../documents/document-store.ts";
import { EXPORT_FORMATS, exportDocument } from "../../documents/export-document.ts";
import { AgentqError } from "../../errors/agentq-error.ts";
import { RevisionMismatchError } from "../../workspaces/workspace-file-errors.ts";
import { writeWorkspaceFile } from "../../workspaces/workspace-files.ts";
import { countOccurrences } from "../files/edit-file-tool.ts";
import { changedDuringWrite, checkReadBeforeWrite, missingWorkspace, toolFailure } from "../files/file-tool-support.ts";
import type { ToolDefinition, ToolResult } from "../tool-definition.ts";

/** Most characters of a document read_document hands the model at once. */
const MAX_READ_CHARS = 200_000;

const documentId = z.string().min(1).max(200).describe("The document_id (from list_documents or create_document).");
const title = z.string().trim().min(1).max(500);
const content = z.string().max(DOCUMENT_MAX_CHARS);

/**
 * The documents family (API.md, "Documents"): a user's revisioned documents. `read_document` taints
 * (a document may hold anything pasted into it); creating, updating and exporting are `write`. The
 * store is null where tools are only listed (the API). An update names the revision it is based on:
 * a document that changed since is refused with its current revision, and an approval of an update
 * is bound to the document's revision (policy/approval-seal.ts, `targetDocumentId`).
 */
export function createDocumentTools(store: DocumentStore | null): ToolDefinition[] {
  const withStore = async (action: (documents: DocumentStore) => Promise<ToolResult>): Promise<ToolResult> => {
    if (store === null) return { ok: false, error: "documents are not available in this process" };
    try {
      return await action(store);
    } catch (error) {
      if (error instanceof RevisionConflictError) {
        return {
          ok: false,
          error: `${error.message}. Nothing was changed. Call read_document to see revision ${error.currentRevision}, then redo your change with base_revision ${error.currentRevision}.`,
          data: { code: error.code, current_revision: error.currentRevision },
        };
      }
      if (error instanceof AgentqError) return { ok: false, error: error.message, data: { code: error.code } };
      throw error;
    }
  };

  const listDocuments: ToolDefinition<{ query?: string | undefined }> = {
    name: "list_documents",
    family: "documents",
    description: "List your documents (id, title, revision, last change), most recently changed first; query filters by words in the title or content.",
    parameters: z.object({ query: z.string().max(500).optional().describe("Text the title or content must contain.") }),
    effects: ["read"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      withStore(async (documents) => {
        const rows = await documents.list(context.userId, args.query);
        if (rows.length === 0) return { ok: true, output: args.query ? `No document matches "${args.query}".` : "You have no documents yet." };
        const lines = rows.map((row) => `${row.id}\t${row.title}\trevision ${row.revision}\tupdated ${row.updatedAt.toISOString()}`);
        return { ok: true, output: `document_id\ttitle\trevision\tupdated\n${lines.join("\n")}`, data: { count: rows.length } };
      }),
  };

  const readDocument: ToolDefinition<{ document_id: string; revision?: number | undefined }> = {
    name: "read_document",
    family: "documents",
    description: "Read a document's title and content, at its current revision or an earlier one. Its revision is what update_document needs as base_revision.",
    parameters: z.object({
      document_id: documentId,
      revision: z.number().int().min(1).optional().describe("An earlier revision to read (default: the current one)."),
    }),
    effects: ["read"],
    taints: true,
    requiresWorkspace: false,
    describeCall: (args) => `document ${args.document_id}${args.revision ? ` at revision ${args.revision}` : ""}`,
    execute: (args, context) =>
      withStore(async (documents) => {
        const current = await documents.get(context.userId, args.document_id);
        const document = args.revision === undefined ? current : await documents.atRevision(context.userId, args.document_id, args.revision);
        const truncated = document.content.length > MAX_READ_CHARS;
        const shown = truncated ? document.content.slice(0, MAX_READ_CHARS) : document.content;
        const header =
          `document_id: ${document.id}\ntitle: ${document.title}\nformat: ${document.format}\nrevision: ${document.revision}` +
          (document.revision !== current.revision ? ` (the current revision is ${current.revision})` : "") +
          (truncated ? `\n(showing the first ${MAX_READ_CHARS} of ${document.content.length} characters)` : "");
        return {
          ok: true,
          output: `${header}\n---\n${shown}`,
          data: { document_id: document.id, revision: document.revision, current_revision: current.revision },
        };
      }),
  };

  const createDocument: ToolDefinition<{ title: string; content: string }> = {
    name: "create_document",
    family: "documents",
    description: "Create a new Markdown document for the user (a report, plan, minutes). Answers its document_id; it starts at revision 1.",
    parameters: z.object({ title: title.describe("The document's title."), content: content.describe("The Markdown content.") }),
    effects: ["write"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      withStore(async (documents) => {
        const created = await documents.create(context.userId, { title: args.title, content: args.content, author: "agent", runId: context.runId });
        return {
          ok: true,
          output: `Created the document "${created.title}". document_id: ${created.id} (revision ${created.revision})`,
          data: { document_id: created.id, revision: created.revision },
        };
      }),
  };

  type UpdateArgs = { document_id: string; base_revision: number; content?: string | undefined; old_text?: string | undefined; new_text?: string | undefined };
  const updateDocument: ToolDefinition<UpdateArgs> = {
    name: "update_document",
    family: "documents",
    description:
      "Change a document: either replace its whole content (content), or replace one exact occurrence of old_text with new_text. " +
      "base_revision is the revision you read: if the document changed since, nothing is changed and you are told its current revision.",
    parameters: z
      .object({
        document_id: documentId,
        base_revision: z.number().int().min(1).describe("The revision your change is based on (from read_document)."),
        content: content.optional().describe("The complete new content."),
        old_text: z.string().min(1).optional().describe("Exact text to replace; it must occur exactly once."),
        new_text: z.string().optional().describe("Text to put in place of old_text."),
      })
      .refine((args) => (args.content !== undefined) !== (args.old_text !== undefined || args.new_text !== undefined), {
        message: "give either content, or old_text and new_text",
      })
      .refine((args) => args.content !== undefined || (args.old_text !== undefined && args.new_text !== undefined), {
        message: "old_text and new_text go together",
      }),
    effects: ["write"],
    taints: false,
    requiresWorkspace: false,
    targetDocument: (args) => args.document_id,
    execute: (args, context) =>
      withStore(async (documents) => {
        let next = args.content;
        if (next === undefined) {
          const current = await documents.get(context.userId, args.document_id);
          if (current.revision !== args.base_revision) {
            return {
              ok: false,
              error: `The document is at revision ${current.revision}, not ${args.base_revision}: nothing was changed. Call read_document and redo your change with base_revision ${current.revision}.`,
              data: { code: "revision_conflict", current_revision: current.revision },
            };
          }
          const oldText = args.old_text ?? "";
          const occurrences = countOccurrences(current.content, oldText);
          if (occurrences !== 1) {
            return {
              ok: false,
              error:
                occurrences === 0
                  ? "old_text was not found in the document (0 occurrences); nothing was changed. Call read_document and copy the exact text."
                  : `old_text occurs ${occurrences} times in the document; nothing was changed. Include more surrounding text so that it matches exactly one place.`,
              data: { code: occurrences === 0 ? "no_match" : "ambiguous_match", occurrences },
            };
          }
          const start = current.content.indexOf(oldText);
          next = current.content.slice(0, start) + (args.new_text ?? "") + current.content.slice(start + oldText.length);
        }
        // The conditional update is the last check: a change that landed since the read above loses nothing.
        const updated = await documents.update(context.userId, args.document_id, {
          baseRevision: args.base_revision,
          content: next,
          author: "agent",
          runId: context.runId,
        });
        return {
          ok: true,
          output: `Updated the document "${updated.title}" (document_id: ${updated.id}): now at revision ${updated.revision}.`,
          data: { document_id: updated.id, revision: updated.revision },
        };
      }),
  };

  type ExportArgs = { document_id: string; format: (typeof EXPORT_FORMATS)[number]; path: string };
  const exportDocumentTool: ToolDefinition<ExportArgs> = {
    name: "export_document",
    family: "documents",
    description:
      "Export a document into the workspace as Markdown, HTML or PDF, at a path relative to the workspace root. " +
      "An existing file is replaced only if you have read it at its current revision.",
    parameters: z.object({
      document_id: documentId,
      format: z.enum(EXPORT_FORMATS).describe("markdown, html or pdf."),
      path: z.string().min(1).max(4096).describe("File path relative to the workspace root (e.g. reports/plan.pdf)."),
    }),
    effects: ["write"],
    taints: false,
    requiresWorkspace: true,
    targetPath: (args) => args.path,
    execute: async (args, context) => {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      return withStore(async (documents) => {
        const document = await documents.get(context.userId, args.document_id);
        const exported = await exportDocument(document, args.format);
        let relativePath: string | undefined;
        try {
          const written = await writeWorkspaceFile(workspace.rootPath, args.path, args.format === "pdf" ? exported.body : exported.body.toString("utf8"), {
            async beforeWrite(file) {
              relativePath = file.path;
              if (file.currentRevision === null) return;
              const refusal = await checkReadBeforeWrite(context, workspace, file.path, file.currentRevision);
              if (refusal !== undefined) throw new ExportRefusal(refusal);
            },
          });
          if (args.format !== "pdf") await context.fileReads.recordRead(workspace.id, written.path, written.revision);
          return {
            ok: true,
            output: `Exported revision ${document.revision} of "${document.title}" as ${args.format} to ${written.path} (${exported.body.length} bytes).`,
            data: { path: written.path, revision: written.revision, document_revision: document.revision },
          };
        } catch (error) {
          if (error instanceof ExportRefusal) return error.result;
          if (error instanceof RevisionMismatchError && relativePath !== undefined) return changedDuringWrite(relativePath);
          return toolFailure(error);
        }
      });
    },
  };

  return [listDocuments, readDocument, createDocument, updateDocument, exportDocumentTool];
}

class ExportRefusal extends Error {
  readonly result: ToolResult;
  constructor(result: ToolResult) {
    super("the export was refused by the read-before-write rule");
    this.result = result;
  }
}
