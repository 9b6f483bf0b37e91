import { z } from "zod";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

// Workspaces (workspaces/workspace-store.ts): the API creates and looks them up on the paths every
// run's client takes, in plain SQL so that those paths never load Prisma's query compiler.

const workspaceRow = z.object({ id: z.string(), name: z.string(), userId: z.string(), rootPath: z.string() });
const WORKSPACE_COLUMNS = `id, name, user_id AS "userId", root_path AS "rootPath"`;

export async function insertWorkspace(
  runner: SqlRunner,
  input: { id: string; userId: string; name: string; rootPath: string },
): Promise<z.output<typeof workspaceRow>> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO workspaces (id, user_id, name, root_path) VALUES ($1, $2, $3, $4) RETURNING ${WORKSPACE_COLUMNS}`,
    [input.id, input.userId, input.name, input.rootPath],
    workspaceRow,
  );
  return row!;
}

/** The workspace if `userId` owns it (invariant 7); undefined otherwise. */
export async function selectOwnWorkspace(
  runner: SqlRunner,
  input: { workspaceId: string; userId: string },
): Promise<z.output<typeof workspaceRow> | undefined> {
  const [row] = await queryParsed(
    runner,
    `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1 AND user_id = $2`,
    [input.workspaceId, input.userId],
    workspaceRow,
  );
  return row;
}
