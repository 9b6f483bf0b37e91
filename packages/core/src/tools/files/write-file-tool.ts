import { z } from "zod";
import { resolveWorkspacePath } from "../../workspaces/resolve-workspace-path.ts";
import { RevisionMismatchError } from "../../workspaces/workspace-file-errors.ts";
import { workspaceFileRevision, writeWorkspaceFile } from "../../workspaces/workspace-files.ts";
import type { ToolDefinition } from "../tool-definition.ts";
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
        const resolved = await resolveWorkspacePath(workspace.rootPath, args.path, { forWrite: true });
        relativePath = resolved.relativePath;
        const currentRevision = await workspaceFileRevision(workspace.rootPath, relativePath);
        if (currentRevision !== null) {
          const refusal = await checkReadBeforeWrite(context, workspace, relativePath, currentRevision);
          if (refusal !== undefined) return refusal;
        }
        const written = await writeWorkspaceFile(workspace.rootPath, relativePath, args.content, {
          expectedRevision: currentRevision,
          maxBytes: options.maxFileBytes,
        });
        await context.fileReads.recordRead(workspace.id, written.path, written.revision);
        const size = `${Buffer.byteLength(args.content, "utf8")} bytes, ${splitLines(args.content).length} lines`;
        return {
          ok: true,
          output: `${written.created ? "Created" : "Replaced"} ${written.path} (${size}, revision ${written.revision}).`,
          data: { path: written.path, revision: written.revision, created: written.created },
        };
      } catch (error) {
        if (error instanceof RevisionMismatchError && relativePath !== undefined) return changedDuringWrite(relativePath);
        return toolFailure(error);
      }
    },
  };
}
