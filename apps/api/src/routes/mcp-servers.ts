import {
  addMcpServer,
  generateId,
  getMcpServerTools,
  listMcpServers,
  mcpServerNameSchema,
  mcpServerRegistrationSchema,
  mcpToolName,
  NotFoundError,
  removeMcpServer,
} from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { mcpServerListSchema, mcpServerSchema, mcpServerToolListSchema } from "../schemas/mcp-schemas.ts";

const SERVER_NAME = "the server's name";

/** A name that cannot be registered cannot exist: 404, like any unknown server. */
function existingName(name: string): string {
  if (!mcpServerNameSchema.safeParse(name).success) throw new NotFoundError("MCP server", { name });
  return name;
}

export const mcpServerRoutes = [
  defineRoute({
    method: "get",
    path: "/api/mcp/servers",
    operationId: "listMcpServers",
    summary: "The registered MCP servers, with their status (admin)",
    access: "admin",
    responses: { 200: { description: "every server, by name", schema: mcpServerListSchema } },
    handler: async ({ dependencies }) => ({ status: 200, body: { servers: await listMcpServers(dependencies.prisma) } }),
  }),
  defineRoute({
    method: "post",
    path: "/api/mcp/servers",
    operationId: "addMcpServer",
    summary: "Register an MCP server (admin)",
    description:
      "`stdio`: a command each worker starts (in the sandbox, with `env` as its whole environment); `http`: a Streamable HTTP endpoint " +
      "(the SSRF guard and `web_fetch_allow` apply). `env` and `headers` are stored encrypted and never returned. Workers connect within a few seconds.",
    access: "admin",
    body: mcpServerRegistrationSchema.meta({ id: "McpServerRegistration" }),
    responses: { 201: { description: "the registered server (status `connecting` until a worker reports)", schema: mcpServerSchema } },
    errors: { 409: "`mcp_server_exists`: a server of that name is registered" },
    handler: async ({ dependencies, user, body }) => ({
      status: 201,
      body: await addMcpServer({ prisma: dependencies.prisma, deploymentSecret: dependencies.runs.approvalSecret, generateId }, body, user.id),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/mcp/servers/:name",
    operationId: "removeMcpServer",
    summary: "Remove an MCP server (admin)",
    description: "Workers drop its connection and stop offering its tools within a few seconds; a later call of one is refused.",
    access: "admin",
    parameters: { name: SERVER_NAME },
    responses: { 204: { description: "removed" } },
    handler: async ({ dependencies, params, user }) => {
      await removeMcpServer(dependencies.prisma, existingName(params.name), user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/mcp/servers/:name/tools",
    operationId: "listMcpServerTools",
    summary: "The tools an MCP server lists (admin)",
    description: "As a worker last listed them; none while the server is not connected.",
    access: "admin",
    parameters: { name: SERVER_NAME },
    responses: { 200: { description: "its tools", schema: mcpServerToolListSchema } },
    handler: async ({ dependencies, params }) => {
      const name = existingName(params.name);
      const tools = await getMcpServerTools(dependencies.prisma, name);
      return {
        status: 200,
        body: {
          tools: tools.map((tool) => ({
            name: tool.name,
            offered_as: mcpToolName(name, tool.name),
            description: tool.description,
            parameters: tool.input_schema,
          })),
        },
      };
    },
  }),
];
