import { mkdir, realpath, rm, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { AgentqError, NotFoundError } from "../errors/agentq-error.ts";
import { generateId } from "../ids.ts";
import { type Db, type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { insertWorkspace, selectOwnWorkspace } from "../store/statements/workspace-statements.ts";

/**
 * Workspaces as users see them. Every query is scoped by the owner's id: someone else's
 * workspace is indistinguishable from a missing one (docs/design.md, invariant 7).
 */

export interface WorkspaceSummary {
  id: string;
  name: string;
}

export interface WorkspaceRecord extends WorkspaceSummary {
  userId: string;
  /** Absolute, real (symlink-free) path of the workspace directory. */
  rootPath: string;
}

/** An admin asked to register a directory that is not inside any of the allowed FILE_ROOTS. */
export class PathNotAllowedError extends AgentqError {
  constructor(path: string, reason: string) {
    super("path_not_allowed", `${reason}; only directories inside FILE_ROOTS can be registered as workspaces`, { path });
  }
}

const summary = { id: true, name: true } as const;
const record = { id: true, name: true, userId: true, rootPath: true } as const;

export interface CreateWorkspaceOptions {
  /** WORKSPACES_ROOT; created when missing. */
  workspacesRoot: string;
  generateId?: (prefix: string) => string;
}

/** Creates `<WORKSPACES_ROOT>/<workspace id>` and records it for `userId`. */
export async function createWorkspace(
  prisma: PrismaClient,
  userId: string,
  input: { name: string },
  options: CreateWorkspaceOptions,
): Promise<WorkspaceRecord> {
  const id = (options.generateId ?? generateId)("ws");
  await mkdir(options.workspacesRoot, { recursive: true });
  // Stored real so that path checks later compare like with like (WORKSPACES_ROOT may be a symlink).
  const rootPath = join(await realpath(options.workspacesRoot), id);
  await mkdir(rootPath);
  try {
    return await insertWorkspace(sqlPoolOf(prisma), { id, userId, name: input.name, rootPath });
  } catch (error) {
    await rm(rootPath, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Registers an existing directory as a workspace (admins only: the route checks the role). The
 * directory's real path must be one of `fileRoots` or inside one, so a symlink cannot smuggle in
 * another directory.
 */
export async function registerWorkspaceDirectory(
  db: Db,
  userId: string,
  input: { name: string; path: string },
  options: { fileRoots: readonly string[]; generateId?: (prefix: string) => string },
): Promise<WorkspaceRecord> {
  const rootPath = await realpath(input.path).catch(() => {
    throw new PathNotAllowedError(input.path, "the directory does not exist");
  });
  if (!(await stat(rootPath)).isDirectory()) throw new PathNotAllowedError(input.path, "the path is not a directory");
  const allowedRoots = await Promise.all(options.fileRoots.map((root) => realpath(root).catch(() => undefined)));
  const inside = allowedRoots.some((root) => root !== undefined && (rootPath === root || rootPath.startsWith(root.endsWith(sep) ? root : root + sep)));
  if (!inside) throw new PathNotAllowedError(input.path, "the directory is outside FILE_ROOTS");
  const id = (options.generateId ?? generateId)("ws");
  return db.workspace.create({ data: { id, userId, name: input.name, rootPath }, select: record });
}

export async function listWorkspaces(db: Db, userId: string): Promise<WorkspaceSummary[]> {
  return db.workspace.findMany({ where: { userId }, select: summary, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** The caller's workspace, or NotFoundError (also when it exists but belongs to someone else). */
export async function getWorkspace(prisma: PrismaClient, userId: string, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await selectOwnWorkspace(sqlPoolOf(prisma), { workspaceId, userId });
  if (workspace === undefined) throw new NotFoundError("workspace", { workspace_id: workspaceId });
  return workspace;
}
