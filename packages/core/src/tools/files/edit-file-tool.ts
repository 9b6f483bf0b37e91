import { z } from "zod";
import { RevisionMismatchError } from "../../workspaces/workspace-file-errors.ts";
import { readWorkspaceFile, writeWorkspaceFile } from "../../workspaces/workspace-files.ts";
import type { ToolDefinition } from "../tool-definition.ts";
import { changedDuringWrite, checkReadBeforeWrite, missingWorkspace, numberLines, splitLines, toolFailure } from "./file-tool-support.ts";

export interface EditFileToolOptions {
  /** Largest file edited (default the workspace layer's, 5 MiB). */
  maxFileBytes?: number;
  /** Lines of context shown around the edited region in the answer (default 3). */
  contextLines?: number;
}

const editFileArguments = z.object({
  path: z.string().describe("File path relative to the workspace root."),
  old_text: z.string().min(1).describe("Exact text to replace, including whitespace; it must occur exactly once in the file."),
  new_text: z.string().describe("Text to put in its place."),
});

export type EditFileArguments = z.infer<typeof editFileArguments>;

/** Shown lines of the edited region at most, so a large replacement does not echo the file back. */
const MAX_SHOWN_LINES = 40;

/**
 * `edit_file`: replaces one exact occurrence of `old_text`. Zero or several occurrences are refused
 * with the count, so the model knows whether to re-read or to add context. Same read rule as
 * `write_file`. If nothing matches in a CRLF file, the texts are retried with CRLF line ends, since
 * models write `\n`.
 */
export function createEditFileTool(options: EditFileToolOptions = {}): ToolDefinition<EditFileArguments> {
  const contextLines = options.contextLines ?? 3;
  return {
    name: "edit_file",
    family: "files",
    description:
      "Replace one exact occurrence of old_text with new_text in a text file you have read with read_file. " +
      "old_text must match the file exactly once (copy it without the line-number prefixes read_file shows).",
    parameters: editFileArguments,
    effects: ["write"],
    taints: false,
    requiresWorkspace: true,
    targetPath: (args) => args.path,
    async execute(args, context) {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      let relativePath: string | undefined;
      try {
        const file = await readWorkspaceFile(workspace.rootPath, args.path, { maxBytes: options.maxFileBytes });
        relativePath = file.path;
        const refusal = await checkReadBeforeWrite(context, workspace, file.path, file.revision);
        if (refusal !== undefined) return refusal;
        if (args.old_text === args.new_text) {
          return { ok: false, error: "old_text and new_text are the same, so there is nothing to change." };
        }

        let oldText = args.old_text;
        let newText = args.new_text;
        let occurrences = countOccurrences(file.content, oldText);
        if (occurrences === 0 && file.content.includes("\r\n") && !oldText.includes("\r")) {
          oldText = oldText.replaceAll("\n", "\r\n");
          newText = newText.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
          occurrences = countOccurrences(file.content, oldText);
        }
        if (occurrences !== 1) return occurrenceError(file.path, occurrences, args.old_text);

        const start = file.content.indexOf(oldText);
        const content = file.content.slice(0, start) + newText + file.content.slice(start + oldText.length);
        const written = await writeWorkspaceFile(workspace.rootPath, file.path, content, {
          expectedRevision: file.revision,
          maxBytes: options.maxFileBytes,
        });
        await context.fileReads.recordRead(workspace.id, written.path, written.revision);

        const firstLine = splitLines(`${content.slice(0, start)}x`).length;
        const lastLine = firstLine + Math.max(splitLines(newText).length, 1) - 1;
        const snippet = editedRegion(content, firstLine, lastLine, contextLines);
        return {
          ok: true,
          output: `Edited ${written.path} (revision ${written.revision}). Lines ${snippet.from}-${snippet.to} now read:\n${snippet.text}`,
          data: { path: written.path, revision: written.revision, first_line: firstLine, last_line: lastLine },
        };
      } catch (error) {
        if (error instanceof RevisionMismatchError && relativePath !== undefined) return changedDuringWrite(relativePath);
        return toolFailure(error);
      }
    },
  };
}

/** Counts occurrences, overlapping ones included: any overlap makes the target ambiguous. */
export function countOccurrences(content: string, needle: string): number {
  let count = 0;
  for (let index = content.indexOf(needle); index !== -1; index = content.indexOf(needle, index + 1)) count++;
  return count;
}

function occurrenceError(relativePath: string, occurrences: number, oldText: string) {
  if (occurrences === 0) {
    const hint = /^\s*\d+\t/m.test(oldText)
      ? " It looks like old_text includes the line-number prefixes that read_file shows; send the file text only."
      : " Call read_file again and copy the exact text, including whitespace and indentation.";
    return {
      ok: false as const,
      error: `old_text was not found in ${relativePath} (0 occurrences); nothing was changed.${hint}`,
      data: { code: "no_match", occurrences: 0 },
    };
  }
  return {
    ok: false as const,
    error:
      `old_text occurs ${occurrences} times in ${relativePath}; nothing was changed. ` +
      "Include more surrounding lines in old_text so that it matches exactly one place.",
    data: { code: "ambiguous_match", occurrences },
  };
}

function editedRegion(content: string, firstLine: number, lastLine: number, contextLines: number) {
  const lines = splitLines(content);
  const from = Math.max(1, firstLine - contextLines);
  const to = Math.min(lines.length, lastLine + contextLines, from + MAX_SHOWN_LINES - 1);
  return { from, to, text: numberLines(lines.slice(from - 1, to), from, 2000).join("\n") };
}
