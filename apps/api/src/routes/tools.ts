import { Router } from "express";
import { z } from "zod";
import { effectLabels, getWorkspace, loadSettings, offeredTools } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { currentUser } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const booleanText = z.enum(["true", "false"], { message: "expected true or false" }).transform((value) => value === "true");

const toolsQuery = z.object({
  workspace_id: z.string().min(1).max(200).optional(),
  mode: z.enum(["agent", "guide"]).optional(),
  allow_bash: booleanText.optional(),
  allow_web_search: booleanText.optional(),
  use_web: booleanText.optional(),
});

/** GET /api/tools: exactly the schema set a run with these switches would send to the model. */
export function toolsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma, runs } = dependencies;

  router.get("/api/tools", async (request, response) => {
    const user = currentUser(request);
    const query = parseRequest(toolsQuery, request.query, "query");
    if (query.workspace_id !== undefined) await getWorkspace(prisma, user.id, query.workspace_id);
    const settings = await loadSettings(prisma);
    const tools = offeredTools(runs.tools.list(), {
      mode: query.mode ?? "agent",
      allowBash: query.allow_bash ?? false,
      allowWebSearch: query.allow_web_search ?? true,
      useWeb: query.use_web ?? false,
      hasWorkspace: query.workspace_id !== undefined,
      role: user.role,
      settings,
    });
    response.json({
      tools: tools.map((tool) => {
        const schema = runs.tools.toModelSchema(tool);
        return { name: tool.name, family: tool.family, description: schema.description, parameters: schema.parameters, effects: effectLabels(tool) };
      }),
    });
  });

  return router;
}
