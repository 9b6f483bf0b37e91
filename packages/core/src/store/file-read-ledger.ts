import type { FileReadLedger } from "../tools/tool-definition.ts";
import type { PrismaClient } from "./create-prisma-client.ts";

/** The run's file reads, kept in Postgres so the revision rule survives a crash or a resume. */
export function createFileReadLedger(prisma: PrismaClient, runId: string): FileReadLedger {
  return {
    async lastReadRevision(workspaceId, path) {
      const row = await prisma.runFileRead.findUnique({ where: { runId_workspaceId_path: { runId, workspaceId, path } }, select: { revision: true } });
      return row?.revision;
    },
    async recordRead(workspaceId, path, revision) {
      await prisma.runFileRead.upsert({
        where: { runId_workspaceId_path: { runId, workspaceId, path } },
        create: { runId, workspaceId, path, revision },
        update: { revision, readAt: new Date() },
      });
    },
  };
}
