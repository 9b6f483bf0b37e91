import { z } from "zod";
import { RevisionMismatchError } from "../../workspaces/workspace-file-errors.ts";
import { writeWorkspaceFile } from "../../workspaces/workspace-files.ts";
import type { ToolDefinition, ToolResult } from "../tool-definition.ts";
import { changedDuringWrite, checkReadBeforeWrite, missingWorkspace, splitLines, toolFailure } from "./file-tool-support.ts";

export interface WriteFileToolOptions {
  /** Largest content written (default the workspace layer's, 5 MiB). */
  maxFileBytes?: number;
}

const writeFileArguments = z.object({
  path: z.string().describe("File path relative to the workspace root. Missing directories are created."),
  content: z.string().describe("The complete new content of the file."),
});

export type WriteFileArguments = z.infer<typeof writeFileArguments>;

/**
 * `write_file`: creates a file, or replaces one this run has read at its current revision (see
 * checkReadBeforeWrite). The new revision is recorded as read, so the model can go on editing
 * what it wrote without reading it back.
 */
export function createWriteFileTool(options: WriteFileToolOptions = {}): ToolDefinition<WriteFileArguments> {
  return {
    name: "write_file",
    family: "files",
    description:
      "Create a text file, or replace the whole content of one. Replacing an existing file requires that you read it " +
      "with read_file first (and that it has not changed since). For a small change to an existing file, prefer edit_file.",
    parameters: writeFileArguments,
    effects: ["write"],
    taints: false,
    requiresWorkspace: true,
    targetPath: (args) => args.path,
    async execute(args, context) {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      let relativePath: string | undefined;
      try {
        const written = await writeWorkspaceFile(workspace.rootPath, args.path, args.content, {
          maxBytes: options.maxFileBytes,
          // The rule is checked against the very file the write replaces: resolving the path and
          // hashing the file here first would look at it twice (a dozen filesystem calls on the path
          // an approved write waits on).
          async beforeWrite(file) {
            relativePath = file.path;
            if (file.currentRevision === null) return;
            const refusal = await checkReadBeforeWrite(context, workspace, file.path, file.currentRevision);
            if (refusal !== undefined) throw new WriteRefusal(refusal);
          },
        });
        await context.fileReads.recordRead(workspace.id, written.path, written.revision);
        const size = `${Buffer.byteLength(args.content, "utf8")} bytes, ${splitLines(args.content).length} lines`;
        return {
          ok: true,
          output: `${written.created ? "Created" : "Replaced"} ${written.path} (${size}, revision ${written.revision}).`,
          data: { path: written.path, revision: written.revision, created: written.created },
        };
      } catch (error) {
        if (error instanceof WriteRefusal) return error.result;
        if (error instanceof RevisionMismatchError && relativePath !== undefined) return changedDuringWrite(relativePath);
        return toolFailure(error);
      }
    },
  };
}

/** The read-before-write rule refused the write: its result for the model, thrown out of the write before anything is written. */
class WriteRefusal extends Error {
  readonly result: ToolResult;
  constructor(result: ToolResult) {
    super("the write was refused by the read-before-write rule");
    this.result = result;
  }
}
