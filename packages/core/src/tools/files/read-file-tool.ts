import { z } from "zod";
import { readWorkspaceFile } from "../../workspaces/workspace-files.ts";
import type { ToolDefinition } from "../tool-definition.ts";
import { missingWorkspace, numberLines, splitLines, toolFailure } from "./file-tool-support.ts";

export interface ReadFileToolOptions {
  /** Lines per page when the model gives no `limit` (default 500): most source files fit in one page. */
  defaultLineLimit?: number;
  /** Largest `limit` accepted (default 2,000). */
  maxLineLimit?: number;
  /** A longer line is cut (default 2,000 characters): minified files would otherwise fill the context. */
  maxLineChars?: number;
  /** A page ends early once its text reaches this size (default 60,000 characters, about 15k tokens). */
  maxPageChars?: number;
  /** Largest file read (default the workspace layer's, 5 MiB). */
  maxFileBytes?: number;
}

const readFileArguments = (maxLineLimit: number) =>
  z.object({
    path: z.string().describe("File path relative to the workspace root."),
    offset: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
    limit: z.number().int().min(1).max(maxLineLimit).optional().describe("How many lines to return at most."),
  });

export type ReadFileArguments = z.infer<ReturnType<typeof readFileArguments>>;

/**
 * `read_file`: a page of a text file with line numbers (`cat -n` style, so the model can refer to
 * lines), and its revision. Records the read in the run's ledger: it is what later allows
 * `write_file`/`edit_file` on that file.
 */
export function createReadFileTool(options: ReadFileToolOptions = {}): ToolDefinition<ReadFileArguments> {
  const defaultLineLimit = options.defaultLineLimit ?? 500;
  const maxLineLimit = options.maxLineLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  const maxPageChars = options.maxPageChars ?? 60_000;
  return {
    name: "read_file",
    family: "files",
    description:
      "Read a UTF-8 text file of the workspace. Each line is shown as its line number, a tab, then the text; " +
      "the number and tab are not part of the file. Long files come in pages: use offset and limit to read further.",
    parameters: readFileArguments(maxLineLimit),
    effects: ["read"],
    taints: true,
    requiresWorkspace: true,
    describeCall: (args) => args.path,
    async execute(args, context) {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      let file: Awaited<ReturnType<typeof readWorkspaceFile>>;
      try {
        file = await readWorkspaceFile(workspace.rootPath, args.path, { maxBytes: options.maxFileBytes });
      } catch (error) {
        return toolFailure(error);
      }
      const lines = splitLines(file.content);
      const offset = args.offset ?? 1;
      if (lines.length > 0 && offset > lines.length) {
        return {
          ok: false,
          error: `${file.path} has ${lines.length} lines; offset ${offset} is past its end. Use an offset from 1 to ${lines.length}.`,
          data: { path: file.path, revision: file.revision, total_lines: lines.length },
        };
      }
      await context.fileReads.recordRead(workspace.id, file.path, file.revision);
      if (lines.length === 0) {
        return { ok: true, output: `${file.path} (revision ${file.revision}) is empty.`, data: pageData(file, 0, 0, 0) };
      }

      const limit = args.limit ?? defaultLineLimit;
      const page: string[] = [];
      let pageChars = 0;
      for (const line of numberLines(lines.slice(offset - 1, offset - 1 + limit), offset, maxLineChars)) {
        // Always show at least one line, so paging makes progress.
        if (page.length > 0 && pageChars + line.length + 1 > maxPageChars) break;
        page.push(line);
        pageChars += line.length + 1;
      }
      const lastShown = offset + page.length - 1;
      const header = `${file.path} (revision ${file.revision}, lines ${offset}-${lastShown} of ${lines.length})`;
      const footer =
        lastShown < lines.length
          ? `\n[Lines ${lastShown + 1}-${lines.length} are not shown. Call read_file with ` +
            `${JSON.stringify({ path: args.path, offset: lastShown + 1 })} for the next page.]`
          : "";
      return { ok: true, output: `${header}\n${page.join("\n")}${footer}`, data: pageData(file, offset, lastShown, lines.length) };
    },
  };
}

function pageData(file: { path: string; revision: string }, startLine: number, endLine: number, totalLines: number) {
  return { path: file.path, revision: file.revision, start_line: startLine, end_line: endLine, total_lines: totalLines };
}
