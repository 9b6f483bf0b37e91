import { constants } from "node:fs";
import { z } from "zod";
import { fileIoFor, readerFor } from "../../workspaces/file-io.ts";
import { openFileBeneath, statBeneath } from "../../workspaces/open-beneath.ts";
import { resolveWorkspacePath } from "../../workspaces/resolve-workspace-path.ts";
import type { ResolvedWorkspacePath } from "../../workspaces/resolve-workspace-path.ts";
import type { ToolDefinition } from "../tool-definition.ts";
import { missingWorkspace, splitLines, toolFailure } from "./file-tool-support.ts";
import { walkWorkspace } from "./walk-workspace.ts";

export interface SearchFilesToolOptions {
  /** Search stops at this many matching lines (default 100). */
  maxMatches?: number;
  /** Search stops after reading this many files (default 5,000): a bound on time for huge trees. */
  maxFilesScanned?: number;
  /** Larger files are skipped (default 1 MiB): they are rarely source and slow to scan. */
  maxFileBytes?: number;
  /** A matching line is shown cut to this length (default 240 characters). */
  maxLineChars?: number;
}

const searchFilesArguments = z.object({
  query: z.string().min(1).describe("Text to find (plain text, not a regex). Case-insensitive unless it contains an uppercase letter."),
  path: z.string().optional().describe("Directory or file to search, relative to the workspace root (default: the whole workspace)."),
});

export type SearchFilesArguments = z.infer<typeof searchFilesArguments>;

/** Bytes looked at for a NUL to call a file binary, as git and grep do. */
const BINARY_SNIFF_BYTES = 8192;

/**
 * `search_files`: plain-substring search (no regex: a model's regex is often invalid or
 * catastrophic, and plain text covers identifiers and messages), smart case like ripgrep's
 * `--smart-case`. Skips `.git`, `node_modules`, binary files and symbolic links; stops early
 * at its limits and says so.
 */
export function createSearchFilesTool(options: SearchFilesToolOptions = {}): ToolDefinition<SearchFilesArguments> {
  const maxMatches = options.maxMatches ?? 100;
  const maxFilesScanned = options.maxFilesScanned ?? 5000;
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
  const maxLineChars = options.maxLineChars ?? 240;
  return {
    name: "search_files",
    family: "files",
    description:
      "Search the workspace's text files for a plain-text query (not a regex; case-insensitive unless the query has " +
      "an uppercase letter). Answers with path:line: text for each matching line. Skips .git, node_modules and binary files.",
    parameters: searchFilesArguments,
    effects: ["read"],
    taints: true,
    requiresWorkspace: true,
    describeCall: (args) => (args.path ? `${JSON.stringify(args.query)} in ${args.path}` : JSON.stringify(args.query)),
    async execute(args, context) {
      const workspace = context.workspace;
      if (workspace === null) return missingWorkspace();
      const caseSensitive = args.query !== args.query.toLowerCase();
      const needle = caseSensitive ? args.query : args.query.toLowerCase();
      const matches: string[] = [];
      let filesScanned = 0;
      let filesSkipped = 0;
      let stoppedBy: "matches" | "files" | undefined;

      const searchFile = async (rootPath: string, relativePath: string): Promise<void> => {
        const content = await readSearchableText(rootPath, relativePath, maxFileBytes);
        if (content === undefined) {
          filesSkipped++;
          return;
        }
        filesScanned++;
        const lines = splitLines(content);
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index]!;
          if (!(caseSensitive ? line : line.toLowerCase()).includes(needle)) continue;
          if (matches.length >= maxMatches) {
            stoppedBy = "matches";
            return;
          }
          const text = line.trim();
          matches.push(`${relativePath}:${index + 1}: ${text.length > maxLineChars ? `${text.slice(0, maxLineChars)}...` : text}`);
        }
      };

      let resolved: ResolvedWorkspacePath;
      try {
        resolved = await resolveWorkspacePath(workspace.rootPath, args.path ?? "");
        const target = await statBeneath(fileIoFor(resolved.rootPath), resolved.rootPath, resolved.relativePath, args.path ?? "");
        if (target === undefined) return { ok: false, error: `${args.path} does not exist. Call list_files to see which paths exist.` };
        if (!target.isDirectory()) {
          await searchFile(resolved.rootPath, resolved.relativePath);
        } else {
          for await (const entry of walkWorkspace(resolved.rootPath, resolved.absolutePath, { signal: context.signal })) {
            if (entry.kind !== "file") continue;
            if (filesScanned >= maxFilesScanned) {
              stoppedBy = "files";
              break;
            }
            await searchFile(resolved.rootPath, entry.relativePath);
            if (stoppedBy !== undefined) break;
          }
        }
      } catch (error) {
        return toolFailure(error);
      }

      const scope = resolved.relativePath === "" ? "the workspace" : resolved.relativePath;
      const skippedNote = filesSkipped > 0 ? ` (${filesSkipped} binary or large file(s) skipped)` : "";
      const data = { matches: matches.length, files_scanned: filesScanned, truncated: stoppedBy !== undefined };
      if (matches.length === 0 && stoppedBy === undefined) {
        return { ok: true, output: `No matches for ${JSON.stringify(args.query)} in ${scope}; ${filesScanned} file(s) searched${skippedNote}.`, data };
      }
      const footer =
        stoppedBy === "matches"
          ? `\n[Stopped at ${maxMatches} matches. Use a more specific query, or pass a path to search one directory.]`
          : stoppedBy === "files"
            ? `\n[Stopped after searching ${maxFilesScanned} files; the rest were not searched. Pass a path to search one directory.]`
            : "";
      return {
        ok: true,
        output: `${matches.length} matching line(s) for ${JSON.stringify(args.query)} in ${scope}${skippedNote}:\n${matches.join("\n")}${footer}`,
        data,
      };
    },
  };
}

/** The file as text, or undefined when it is too large, binary (a NUL early on, invalid UTF-8) or unreadable. */
async function readSearchableText(rootPath: string, relativePath: string, maxFileBytes: number): Promise<string | undefined> {
  const io = fileIoFor(rootPath);
  let fd: number;
  try {
    // Beneath the root with no link followed (open-beneath.ts): a directory swapped for a link
    // during the walk is not searched through.
    fd = await openFileBeneath(io, rootPath, relativePath, constants.O_RDONLY | constants.O_NONBLOCK, relativePath);
  } catch {
    return undefined;
  }
  try {
    const stats = await io.fstat(fd);
    if (!stats.isFile() || stats.size > maxFileBytes) return undefined;
    const bytes = await readerFor(io, stats.size).readFile(fd);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return undefined;
    }
  } finally {
    await io.close(fd);
  }
}
