import { z } from "zod";
import { fileIoFor } from "../../workspaces/file-io.ts";
import { statBeneath } from "../../workspaces/open-beneath.ts";
import { resolveWorkspacePath } from "../../workspaces/resolve-workspace-path.ts";
import type { ToolDefinition } from "../tool-definition.ts";
import { missingWorkspace, toolFailure } from "./file-tool-support.ts";
import { walkWorkspace } from "./walk-workspace.ts";
import type { WorkspaceEntry } from "./walk-workspace.ts";

export interface ListFilesToolOptions {
  /** Most entries listed (default 300): enough for an overview, small enough for any context. */
  maxEntries?: number;
}

const listFilesArguments = z.object({
  path: z.string().optional().describe("Directory relative to the workspace root (default: the root)."),
});

export type ListFilesArguments = z.infer<typeof listFilesArguments>;

/**
 * `list_files`: the entries below a directory, recursively, breadth first, so a large tree still
 * shows its top levels. Directories end with `/`; `.git` and `node_modules` are shown but not
 * expanded; symbolic links are marked and not followed.
 */
export function createListFilesTool(options: ListFilesToolOptions = {}): ToolDefinition<ListFilesArguments> {
  const maxEntries = options.maxEntries ?? 300;
  return {
    name: "list_files",
    family: "files",
    description:
      "List the files and directories below a workspace directory (recursively, top levels first). " +
      "Directories end with '/'. Omit path for the workspace root.",
    parameters: listFilesArguments,
    effects: ["read"],
    taints: true,
    requiresWorkspace: true,
    describeCall: (args) => args.path || "the workspace root",
    async execute(args, context) {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      const requested = args.path ?? "";
      let entries: WorkspaceEntry[] = [];
      let truncated = false;
      let directoryPath: string;
      try {
        const resolved = await resolveWorkspacePath(workspace.rootPath, requested);
        directoryPath = resolved.relativePath;
        const stats = await statBeneath(fileIoFor(resolved.rootPath), resolved.rootPath, resolved.relativePath, requested);
        if (stats === undefined) {
          return { ok: false, error: `${requested} does not exist. Call list_files without a path to see the workspace root.` };
        }
        if (!stats.isDirectory()) {
          return { ok: false, error: `${resolved.relativePath} is a file, not a directory. Call read_file to read it.` };
        }
        for await (const entry of walkWorkspace(resolved.rootPath, resolved.absolutePath, { signal: context.signal })) {
          if (entries.length >= maxEntries) {
            truncated = true;
            break;
          }
          entries.push(entry);
        }
      } catch (error) {
        return toolFailure(error);
      }

      const shownDirectory = directoryPath === "" ? "the workspace root" : `${directoryPath}/`;
      if (entries.length === 0) return { ok: true, output: `${shownDirectory} is empty.`, data: { path: directoryPath, entries: 0 } };
      entries = entries.sort((left, right) => (left.relativePath < right.relativePath ? -1 : 1));
      const lines = entries.map(formatEntry);
      const footer = truncated
        ? `\n[Listing stopped at ${maxEntries} entries; deeper levels are incomplete. Call list_files with a subdirectory path to see more.]`
        : "";
      return {
        ok: true,
        output: `${entries.length} entries under ${shownDirectory}:\n${lines.join("\n")}${footer}`,
        data: { path: directoryPath, entries: entries.length, truncated },
      };
    },
  };
}

function formatEntry(entry: WorkspaceEntry): string {
  switch (entry.kind) {
    case "directory":
      return entry.skipped ? `${entry.relativePath}/ (not expanded)` : `${entry.relativePath}/`;
    case "symlink":
      return `${entry.relativePath} (symbolic link)`;
    case "other":
      return `${entry.relativePath} (special file)`;
    case "file":
      return entry.relativePath;
  }
}
