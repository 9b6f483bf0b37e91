import { AgentqError } from "../../errors/agentq-error.ts";
import { errnoCode } from "../../workspaces/resolve-workspace-path.ts";
import type { ToolContext, ToolResult, WorkspaceRef } from "../tool-definition.ts";

/** The file tools are only offered with a workspace; the executor may still call one without. */
export function missingWorkspace(): ToolResult {
  return { ok: false, error: "This tool needs a workspace, and this run has none. Answer without file access." };
}

/** What the model can do next, per error code of the workspace layer. */
const HINTS: Record<string, string> = {
  path_outside_workspace: "Only paths inside the workspace can be used.",
  file_not_found: "Call list_files to see which files exist.",
  not_a_file: "Call list_files to see what the directory holds.",
  not_a_directory: "A file is in the way of that path; pick another path.",
  binary_file: "Only UTF-8 text files can be used with the file tools.",
  file_too_large: "The file is too large for this tool.",
};

/**
 * Turns an expected failure (a workspace error, a filesystem refusal) into a tool result the
 * model can act on. Anything else is rethrown: the executor reports it as an internal failure.
 */
export function toolFailure(error: unknown): ToolResult {
  if (error instanceof AgentqError) {
    const hint = HINTS[error.code];
    return { ok: false, error: `${capitalize(error.message)}.${hint ? ` ${hint}` : ""}`, data: { code: error.code } };
  }
  const code = errnoCode(error);
  if (code === "EACCES" || code === "EPERM" || code === "EROFS" || code === "ENOSPC" || code === "ENAMETOOLONG") {
    return { ok: false, error: `The filesystem refused the operation (${code}).`, data: { code: "filesystem_error", errno: code } };
  }
  throw error;
}

/**
 * The rule that keeps a model from overwriting what it has not seen: an existing file may be
 * replaced or edited only if this run read it, at the revision it has now. Returns the refusal,
 * or undefined when the write may go ahead.
 */
export async function checkReadBeforeWrite(
  context: ToolContext,
  workspace: WorkspaceRef,
  relativePath: string,
  currentRevision: string,
): Promise<ToolResult | undefined> {
  const readRevision = await context.fileReads.lastReadRevision(workspace.id, relativePath);
  if (readRevision === undefined) {
    return {
      ok: false,
      error: `${relativePath} already exists and you have not read it in this run. Call read_file on ${relativePath} first, then make your change.`,
      data: { code: "file_not_read", path: relativePath, current_revision: currentRevision },
    };
  }
  if (readRevision !== currentRevision) {
    return {
      ok: false,
      error:
        `${relativePath} has changed since you read it (you read revision ${readRevision}, it is now ${currentRevision}). ` +
        `Call read_file on ${relativePath} again and redo your change against its current content.`,
      data: { code: "stale_read", path: relativePath, read_revision: readRevision, current_revision: currentRevision },
    };
  }
  return undefined;
}

/** A write lost a race with another writer between our check and the rename. */
export function changedDuringWrite(relativePath: string): ToolResult {
  return {
    ok: false,
    error: `${relativePath} changed while it was being written; nothing was written. Call read_file on ${relativePath} again and redo your change.`,
    data: { code: "stale_read", path: relativePath },
  };
}

/** Lines of a text as a reader counts them: a final newline does not start another line. */
export function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `cat -n` style: the number, a tab, the line (without a trailing `\r`), cut at `maxLineChars`. */
export function numberLines(lines: readonly string[], firstLineNumber: number, maxLineChars: number): string[] {
  const width = String(firstLineNumber + lines.length - 1).length;
  return lines.map((line, index) => {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    const shown = text.length > maxLineChars ? `${text.slice(0, maxLineChars)}... [line cut at ${maxLineChars} characters]` : text;
    return `${String(firstLineNumber + index).padStart(width)}\t${shown}`;
  });
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}
