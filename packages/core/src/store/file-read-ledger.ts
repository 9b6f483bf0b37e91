import type { FileReadLedger } from "../tools/tool-definition.ts";
import { type PrismaClient, sqlPoolOf } from "./create-prisma-client.ts";
import type { StatementFileRead } from "./run-statement.ts";
import { selectLastFileRead } from "./statements/file-read-statements.ts";

/**
 * One execution's view of the run's file reads, kept in Postgres so the revision rule survives a
 * crash or a resume. A read is staged with the call's result (`stage`: committed in the same statement,
 * no round trip of its own); until then this execution answers from what it recorded, and earlier
 * executions' reads come from the table.
 */
export function createFileReadLedger(prisma: PrismaClient, runId: string, stage: (read: StatementFileRead) => void): FileReadLedger {
  const pool = sqlPoolOf(prisma);
  const recorded = new Map<string, string>();
  const keyOf = (workspaceId: string, path: string) => `${workspaceId}\u0000${path}`;
  return {
    async lastReadRevision(workspaceId, path) {
      return recorded.get(keyOf(workspaceId, path)) ?? (await selectLastFileRead(pool, { runId, workspaceId, path }))?.revision;
    },
    async recordRead(workspaceId, path, revision) {
      recorded.set(keyOf(workspaceId, path), revision);
      stage({ workspaceId, path, revision });
    },
  };
}
