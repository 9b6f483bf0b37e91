import { mkdir, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import { openChildDirectory, openWorkspaceRoot, pathBeneath } from "./open-beneath.ts";
import { errnoCode, isInsideRoot } from "./resolve-workspace-path.ts";
import { NotADirectoryError } from "./workspace-file-errors.ts";

/**
 * Creates `directory` (a real absolute path inside `rootPath`) one level at a time and returns it
 * opened (the caller closes it). Each level is created and then opened through its parent's
 * descriptor with O_NOFOLLOW (open-beneath.ts), so a link planted at any level, at any moment,
 * cannot make us create or open anything outside the workspace. `requestedPath` is only used in
 * error messages.
 */
export async function createWorkspaceDirectories(rootPath: string, directory: string, requestedPath: string): Promise<FileHandle> {
  if (!isInsideRoot(rootPath, directory)) throw new PathOutsideWorkspaceError(requestedPath);
  const segments = path
    .relative(rootPath, directory)
    .split(path.sep)
    .filter((segment) => segment !== "");
  let current = await openWorkspaceRoot(rootPath, requestedPath);
  let currentRelative = "";
  try {
    for (const segment of segments) {
      try {
        await mkdir(pathBeneath(current, segment));
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOTDIR") throw new NotADirectoryError(currentRelative);
        if (code !== "EEXIST") throw error;
      }
      const relative = currentRelative === "" ? segment : `${currentRelative}/${segment}`;
      let next: FileHandle;
      try {
        next = await openChildDirectory(current, segment, requestedPath);
      } catch (error) {
        if (errnoCode(error) === "ENOTDIR") throw new NotADirectoryError(relative);
        throw error;
      }
      await current.close();
      current = next;
      currentRelative = relative;
    }
  } catch (error) {
    await current.close();
    throw error;
  }
  return current;
}
