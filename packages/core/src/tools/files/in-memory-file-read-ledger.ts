import type { FileReadLedger } from "../tool-definition.ts";

/** A FileReadLedger kept in memory: for unit tests and in-process fakes (production's is in Postgres). */
export function createInMemoryFileReadLedger(): FileReadLedger & { reads: Map<string, string> } {
  const reads = new Map<string, string>();
  const key = (workspaceId: string, path: string) => `${workspaceId}\u0000${path}`;
  return {
    reads,
    async lastReadRevision(workspaceId, path) {
      return reads.get(key(workspaceId, path));
    },
    async recordRead(workspaceId, path, revision) {
      reads.set(key(workspaceId, path), revision);
    },
  };
}
