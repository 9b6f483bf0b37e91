import { lstat, mkdir } from "node:fs/promises";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import { errnoCode, isInsideRoot } from "./resolve-workspace-path.ts";
import { NotADirectoryError } from "./workspace-file-errors.ts";

/**
 * Creates `directory` (a real absolute path inside `rootPath`) one level at a time. Each level is
 * created without `recursive` and then checked with lstat to be a real directory, not a link, so a
 * link planted between the checks cannot make us create anything outside the workspace.
 * `requestedPath` is only used in error messages.
 */
export async function createWorkspaceDirectories(rootPath: string, directory: string, requestedPath: string): Promise<void> {
  if (!isInsideRoot(rootPath, directory)) throw new PathOutsideWorkspaceError(requestedPath);
  const segments = path.relative(rootPath, directory).split(path.sep).filter((segment) => segment !== "");
  let current = rootPath;
  for (const segment of segments) {
    current = path.join(current, segment);
    try {
      await mkdir(current);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOTDIR") throw new NotADirectoryError(path.relative(rootPath, path.dirname(current)));
      if (code !== "EEXIST") throw error;
    }
    const stats = await lstat(current);
    if (stats.isSymbolicLink()) throw new PathOutsideWorkspaceError(requestedPath);
    if (!stats.isDirectory()) throw new NotADirectoryError(path.relative(rootPath, current).split(path.sep).join("/"));
  }
}
