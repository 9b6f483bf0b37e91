import { z } from "zod";
import {
  createWorkspace,
  FileNotFoundError,
  getWorkspace,
  listWorkspaceDirectory,
  listWorkspaces,
  NotFoundError,
  readWorkspaceFile,
  registerWorkspaceDirectory,
  writeWorkspaceFile,
} from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { requireAdmin } from "../http/authenticate.ts";
import { workspaceFileSchema, workspaceListSchema, workspaceSchema, workspaceTreeSchema, writtenFileSchema } from "../schemas/workspace-schemas.ts";

const createWorkspaceBody = z
  .object({
    name: z.string().trim().min(1, "a workspace name is required").max(200, "a workspace name is at most 200 characters"),
    /** Admins only: register an existing directory inside FILE_ROOTS instead of creating one. */
    path: z.string().min(1).optional().meta({ description: "admins only: an existing directory inside one of FILE_ROOTS to register" }),
  })
  .meta({ id: "CreateWorkspaceRequest" });

const writeFileBody = z
  .object({
    content: z.string().meta({ description: "UTF-8 text" }),
    base_revision: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .optional()
      .meta({
        description:
          "the revision the new content was based on (from a read): the write happens only if the file is still at it, else " +
          "`409 revision_mismatch` with `details.current_revision` and nothing changed; `null`: only if the file does not exist yet",
      }),
  })
  .meta({ id: "WriteFileRequest" });

/** Missing files are `404 not_found`, like every other missing resource of the API. */
function asNotFound(error: unknown): never {
  if (error instanceof FileNotFoundError) throw new NotFoundError("file", error.details);
  throw error;
}

const treeQuery = z.object({
  path: z.string().max(4096).optional().meta({ description: "the directory, workspace-relative (default: the root)" }),
});

const WORKSPACE_ID = "the workspace's id";
const FILE_ERRORS = {
  400: "`invalid_request`; `path_outside_workspace`: the path leaves the workspace; `invalid_path`, `not_a_file`, `not_a_directory`",
  413: "`file_too_large` (5 MiB) or `payload_too_large`",
  415: "`binary_file`: not UTF-8 text; or `unsupported_media_type`",
} as const;

export const workspaceRoutes = [
  defineRoute({
    method: "post",
    path: "/api/workspaces",
    operationId: "createWorkspace",
    summary: "Create a workspace",
    description: "A directory is created under WORKSPACES_ROOT, owned by the caller. An admin may instead register an existing directory (`path`).",
    body: createWorkspaceBody,
    responses: { 201: { description: "the workspace", schema: workspaceSchema } },
    errors: {
      400: "`invalid_request`; `path_not_allowed`: `path` is not inside one of FILE_ROOTS",
      403: "`forbidden`: `path` given by a caller who is not an admin",
    },
    handler: async ({ dependencies, request, user, body }) => {
      const { prisma, config } = dependencies;
      const workspace =
        body.path === undefined
          ? await createWorkspace(prisma, user.id, { name: body.name }, { workspacesRoot: config.workspacesRoot })
          : await registerWorkspaceDirectory(prisma, requireAdmin(request).id, { name: body.name, path: body.path }, { fileRoots: config.fileRoots });
      return { status: 201, body: { id: workspace.id, name: workspace.name } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/workspaces",
    operationId: "listWorkspaces",
    summary: "The caller's workspaces",
    responses: { 200: { description: "the workspaces", schema: workspaceListSchema } },
    handler: async ({ dependencies, user }) => {
      const workspaces = await listWorkspaces(dependencies.prisma, user.id);
      return { status: 200, body: { workspaces: workspaces.map(({ id, name }) => ({ id, name })) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/workspaces/:id/tree",
    operationId: "listWorkspaceDirectory",
    summary: "One directory level of the workspace",
    description:
      "Directories first, then by name; at most 1000 entries (`truncated` says when there are more). The file routes' containment rules " +
      "apply: a path that leaves the workspace is `400 path_outside_workspace`; symbolic links are listed as `symlink`, never followed.",
    parameters: { id: WORKSPACE_ID },
    query: treeQuery,
    responses: { 200: { description: "the directory's entries", schema: workspaceTreeSchema } },
    errors: {
      400: "`invalid_request`: `path` is not a directory (or malformed); `path_outside_workspace`; `invalid_path`",
      404: "`not_found`: no such workspace (or someone else's), or nothing at `path`",
    },
    handler: async ({ dependencies, user, params, query }) => {
      const workspace = await getWorkspace(dependencies.prisma, user.id, params.id);
      return { status: 200, body: await listWorkspaceDirectory(workspace.rootPath, query.path ?? "").catch(asNotFound) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/workspaces/:id/files/*path",
    operationId: "readWorkspaceFile",
    summary: "Read a file of the workspace",
    parameters: { id: WORKSPACE_ID },
    responses: { 200: { description: "the file's text and revision", schema: workspaceFileSchema } },
    errors: { ...FILE_ERRORS, 404: "`not_found`: no such workspace (or someone else's), or no such file" },
    handler: async ({ dependencies, user, params }) => {
      const workspace = await getWorkspace(dependencies.prisma, user.id, params.id);
      const file = await readWorkspaceFile(workspace.rootPath, params.path).catch(asNotFound);
      return { status: 200, body: { path: file.path, content: file.content, revision: file.revision } };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/workspaces/:id/files/*path",
    operationId: "writeWorkspaceFile",
    summary: "Create or replace a file of the workspace",
    description:
      "Missing directories on the way are created. The write is atomic: readers see the old file or the new one. " +
      "With `base_revision`, it is also conditional: a file that changed since that revision is left as it is (`409 revision_mismatch`).",
    parameters: { id: WORKSPACE_ID },
    body: writeFileBody,
    nulAllowedIn: ["content"],
    responses: { 200: { description: "the file's new revision", schema: writtenFileSchema } },
    errors: {
      ...FILE_ERRORS,
      409: "`revision_mismatch`: the file is not at `base_revision` (`details.current_revision`: where it is, null when it does not exist)",
    },
    handler: async ({ dependencies, user, params, body }) => {
      const workspace = await getWorkspace(dependencies.prisma, user.id, params.id);
      const options = body.base_revision === undefined ? {} : { expectedRevision: body.base_revision };
      const file = await writeWorkspaceFile(workspace.rootPath, params.path, body.content, options).catch(asNotFound);
      return { status: 200, body: { path: file.path, revision: file.revision } };
    },
  }),
];
