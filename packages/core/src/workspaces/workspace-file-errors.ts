import { AgentqError, ConflictError } from "../errors/agentq-error.ts";

/*
 * Errors of workspace file access. Each `code` is what the HTTP API returns; the suggested
 * statuses are: invalid_path 400, not_a_file 400, not_a_directory 400, file_not_found 404,
 * binary_file 415, file_too_large 413, revision_mismatch 409, workspace_root_missing 500.
 * (`path_outside_workspace` is PathOutsideWorkspaceError in errors/agentq-error.ts.)
 */

/** The path is malformed for the operation (empty where a file is needed, too long, a link loop). */
export class InvalidPathError extends AgentqError {
  constructor(path: string, reason: string) {
    super("invalid_path", `invalid path "${path}": ${reason}`, { path, reason });
  }
}

/** A file was expected and the path names a directory (or something that is not a regular file). */
export class NotAFileError extends AgentqError {
  constructor(path: string) {
    super("not_a_file", `"${path}" is not a regular file (it is a directory or a special file)`, { path });
  }
}

/** A directory was expected and the path names a file. */
export class NotADirectoryError extends AgentqError {
  constructor(path: string) {
    super("not_a_directory", `"${path}" is not a directory`, { path });
  }
}

export class FileNotFoundError extends AgentqError {
  constructor(path: string) {
    super("file_not_found", `file "${path}" does not exist`, { path });
  }
}

/** Workspace files are exchanged as UTF-8 text; anything else is refused rather than mangled. */
export class BinaryFileError extends AgentqError {
  constructor(path: string) {
    super("binary_file", `"${path}" is not a UTF-8 text file`, { path });
  }
}

export class FileTooLargeError extends AgentqError {
  constructor(path: string, sizeBytes: number, maxBytes: number) {
    super("file_too_large", `"${path}" is ${sizeBytes} bytes, more than the limit of ${maxBytes} bytes`, {
      path,
      size_bytes: sizeBytes,
      max_bytes: maxBytes,
    });
  }
}

/** A conditional write found another revision than the caller based its change on. */
export class RevisionMismatchError extends ConflictError {
  constructor(path: string, expectedRevision: string | null, currentRevision: string | null) {
    super(
      "revision_mismatch",
      expectedRevision === null
        ? `"${path}" already exists; read it before overwriting it`
        : `"${path}" changed since revision ${expectedRevision}; read it again and redo the change`,
      { path, expected_revision: expectedRevision, current_revision: currentRevision },
    );
  }
}

/** The workspace's root directory is gone: a deployment problem, not the caller's. */
export class WorkspaceRootMissingError extends AgentqError {
  constructor(rootPath: string) {
    super("workspace_root_missing", "the workspace directory does not exist on this host", { root_path: rootPath });
  }
}
