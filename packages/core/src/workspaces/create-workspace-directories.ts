import path from "node:path";
import { PathOutsideWorkspaceError } from "../errors/agentq-error.ts";
import type { FileIo } from "./file-io.ts";
import { openChildDirectory, openWorkspaceRoot, pathBeneath } from "./open-beneath.ts";
import { errnoCode, isInsideRoot } from "./resolve-workspace-path.ts";
import { NotADirectoryError } from "./workspace-file-errors.ts";

/**
 * Creates `directory` (a real absolute path inside `rootPath`) one level at a time and returns it
 * opened (the caller closes it with `io`). Each level is created and then opened through its parent's
 * descriptor with O_NOFOLLOW (open-beneath.ts), so a link planted at any level, at any moment,
 * cannot make us create or open anything outside the workspace. `requestedPath` is only used in
 * error messages.
 */
export async function createWorkspaceDirectories(io: FileIo, rootPath: string, directory: string, requestedPath: string): Promise<number> {
  if (!isInsideRoot(rootPath, directory)) throw new PathOutsideWorkspaceError(requestedPath);
  const segments = path
    .relative(rootPath, directory)
    .split(path.sep)
    .filter((segment) => segment !== "");
  let current = await openWorkspaceRoot(io, rootPath, requestedPath);
  let currentRelative = "";
  try {
    for (const segment of segments) {
      try {
        await io.mkdir(pathBeneath(current, segment));
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOTDIR") throw new NotADirectoryError(currentRelative);
        if (code !== "EEXIST") throw error;
      }
      const relative = currentRelative === "" ? segment : `${currentRelative}/${segment}`;
      let next: number;
      try {
        next = await openChildDirectory(io, current, segment, requestedPath);
      } catch (error) {
        if (errnoCode(error) === "ENOTDIR") throw new NotADirectoryError(relative);
        throw error;
      }
      await io.close(current);
      current = next;
      currentRelative = relative;
    }
  } catch (error) {
    await io.close(current);
    throw error;
  }
  return current;
}
