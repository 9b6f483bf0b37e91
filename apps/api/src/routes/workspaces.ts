import { Router } from "express";
import { z } from "zod";
import {
  createWorkspace,
  FileNotFoundError,
  getWorkspace,
  listWorkspaces,
  NotFoundError,
  readWorkspaceFile,
  registerWorkspaceDirectory,
  writeWorkspaceFile,
} from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { currentUser, requireAdmin } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const createWorkspaceBody = z.object({
  name: z.string().trim().min(1, "a workspace name is required").max(200, "a workspace name is at most 200 characters"),
  /** Admins only: register an existing directory inside FILE_ROOTS instead of creating one. */
  path: z.string().min(1).optional(),
});

const writeFileBody = z.object({ content: z.string() });

/** `*path` arrives as the list of decoded segments (path-to-regexp v8). */
function filePathParameter(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join("/") : String(value ?? "");
}

/** Missing files are `404 not_found`, like every other missing resource of the API. */
function asNotFound(error: unknown): never {
  if (error instanceof FileNotFoundError) throw new NotFoundError("file", error.details);
  throw error;
}

export function workspacesRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma, config } = dependencies;

  router.post("/api/workspaces", async (request, response) => {
    const user = currentUser(request);
    const body = parseRequest(createWorkspaceBody, request.body);
    const workspace =
      body.path === undefined
        ? await createWorkspace(prisma, user.id, { name: body.name }, { workspacesRoot: config.workspacesRoot })
        : await registerWorkspaceDirectory(prisma, requireAdmin(request).id, { name: body.name, path: body.path }, { fileRoots: config.fileRoots });
    response.status(201).json({ id: workspace.id, name: workspace.name });
  });

  router.get("/api/workspaces", async (request, response) => {
    const workspaces = await listWorkspaces(prisma, currentUser(request).id);
    response.json({ workspaces: workspaces.map(({ id, name }) => ({ id, name })) });
  });

  router.get("/api/workspaces/:id/files/*path", async (request, response) => {
    const workspace = await getWorkspace(prisma, currentUser(request).id, request.params.id);
    const file = await readWorkspaceFile(workspace.rootPath, filePathParameter(request.params.path)).catch(asNotFound);
    response.json({ path: file.path, content: file.content, revision: file.revision });
  });

  router.put("/api/workspaces/:id/files/*path", async (request, response) => {
    const workspace = await getWorkspace(prisma, currentUser(request).id, request.params.id);
    const body = parseRequest(writeFileBody, request.body, "request body", { nulAllowedIn: ["content"] });
    const file = await writeWorkspaceFile(workspace.rootPath, filePathParameter(request.params.path), body.content).catch(asNotFound);
    response.json({ path: file.path, revision: file.revision });
  });

  return router;
}
