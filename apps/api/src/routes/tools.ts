import { z } from "zod";
import { effectLabels, getWorkspace, listReportedMcpTools, loadSettings, offeredTools } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { toolListSchema } from "../schemas/tool-schemas.ts";

const booleanText = z.enum(["true", "false"], { message: "expected true or false" }).transform((value) => value === "true");

const toolsQuery = z.object({
  workspace_id: z.string().min(1).max(200).optional().meta({ description: "the run's workspace (file and process tools need one)" }),
  mode: z.enum(["agent", "guide"]).optional().meta({ description: "default `agent`; `guide` offers none" }),
  allow_bash: booleanText.optional().meta({ description: "default false" }),
  allow_web_search: booleanText.optional().meta({ description: "default true" }),
  use_web: booleanText.optional().meta({ description: "default false" }),
  tools: z
    .string()
    .max(13_000)
    .optional()
    .transform((text) => (text === undefined ? [] : text.split(",").filter((name) => name !== "")))
    .meta({ description: "comma-separated: only these, as a run created with this `tools` list (default: no such limit)" }),
});

export const toolRoutes = [
  defineRoute({
    method: "get",
    path: "/api/tools",
    operationId: "listTools",
    summary: "The tools a run with these switches would be offered",
    description: "Exactly the schema set such a run would send to the model for the caller.",
    query: toolsQuery,
    responses: { 200: { description: "the offered tools", schema: toolListSchema } },
    errors: { 404: "`not_found`: the workspace does not exist or is someone else's" },
    handler: async ({ dependencies, user, query }) => {
      const { prisma, runs } = dependencies;
      if (query.workspace_id !== undefined) await getWorkspace(prisma, user.id, query.workspace_id);
      const [settings, mcpTools] = await Promise.all([loadSettings(prisma), listReportedMcpTools(prisma)]);
      // The fixed tools, then the MCP servers' tools as the workers reported them (a fixed name wins, as in the workers).
      const catalog = [...runs.tools.list(), ...mcpTools.filter((tool) => runs.tools.get(tool.name) === undefined)];
      const tools = offeredTools(catalog, {
        mode: query.mode ?? "agent",
        allowBash: query.allow_bash ?? false,
        allowWebSearch: query.allow_web_search ?? true,
        useWeb: query.use_web ?? false,
        tools: query.tools,
        hasWorkspace: query.workspace_id !== undefined,
        role: user.role,
        settings,
      });
      const listed = tools.map((tool) => {
        const schema = runs.tools.toModelSchema(tool);
        return { name: tool.name, family: tool.family, description: schema.description, parameters: schema.parameters, effects: effectLabels(tool) };
      });
      return { status: 200, body: { tools: listed } };
    },
  }),
];
