import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";
import { createInMemoryFileReadLedger } from "./in-memory-file-read-ledger.ts";

/** A temporary workspace and a tool context bound to it, for the file tools' unit tests. */
export interface FileToolTestWorkspace {
  root: string;
  context: ToolContext;
  ledger: ReturnType<typeof createInMemoryFileReadLedger>;
  /** Writes files (creating directories) directly, bypassing the tools. */
  put(files: Record<string, string | Buffer>): Promise<void>;
  /** Parses arguments through the tool's zod schema and runs it, as the executor would. */
  run<Args>(tool: ToolDefinition<Args>, args: unknown): Promise<ToolResult>;
  dispose(): Promise<void>;
}

export async function createFileToolTestWorkspace(): Promise<FileToolTestWorkspace> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "agentq-file-tools-")));
  const root = path.join(base, "ws");
  await mkdir(root);
  const ledger = createInMemoryFileReadLedger();
  const context: ToolContext = {
    runId: "run_test",
    chatId: "chat_test",
    userId: "user_test",
    workspace: { id: "ws_test", rootPath: root },
    signal: new AbortController().signal,
    fileReads: ledger,
    settings: { webFetchAllow: [], processNetwork: false },
  };
  return {
    root,
    context,
    ledger,
    async put(files) {
      for (const [relativePath, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(root, relativePath)), { recursive: true });
        await writeFile(path.join(root, relativePath), content);
      }
    },
    async run(tool, args) {
      return tool.execute(tool.parameters.parse(args), context);
    },
    async dispose() {
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** The output of a successful result, or a thrown error naming the failure (keeps tests short). */
export function outputOf(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result.output;
}

/** The error of a failed result, or a thrown error with the unexpected output. */
export function errorOf(result: ToolResult): string {
  if (result.ok) throw new Error(`expected failure, got: ${result.output}`);
  return result.error;
}
