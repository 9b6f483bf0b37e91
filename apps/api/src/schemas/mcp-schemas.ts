import { z } from "zod";
import { MCP_SERVER_STATUSES } from "@agentq/core";
import { jsonObject } from "./common-schemas.ts";

export const mcpServerSchema = z
  .object({
    name: z.string(),
    transport: z.enum(["stdio", "http"]),
    command: z.string().nullable().meta({ description: "stdio: the program the worker starts" }),
    args: z.array(z.string()),
    url: z.string().nullable().meta({ description: "http: the Streamable HTTP endpoint" }),
    network: z.boolean().meta({ description: "stdio: the server shares the host's network" }),
    enabled: z.boolean(),
    status: z.enum(MCP_SERVER_STATUSES).meta({ description: "as the last worker to report saw it" }),
    error: z.string().nullable().meta({ description: "why it failed (status `failed`)" }),
    tools_count: z.number().int(),
    created_at: z.string(),
    status_at: z.string().nullable().meta({ description: "when a worker last reported its status" }),
  })
  .meta({ id: "McpServer", description: "A registered MCP server; its env and headers are never returned" });

export const mcpServerListSchema = z.object({ servers: z.array(mcpServerSchema) }).meta({ id: "McpServerList" });

export const mcpServerToolSchema = z
  .object({
    name: z.string().meta({ description: "the name the server gives it" }),
    offered_as: z.string().meta({ description: "the name runs are offered it by: `mcp__<server>__<tool>`" }),
    description: z.string(),
    parameters: jsonObject().meta({ description: "its JSON Schema, as the server lists it" }),
  })
  .meta({ id: "McpServerTool" });

export const mcpServerToolListSchema = z.object({ tools: z.array(mcpServerToolSchema) }).meta({ id: "McpServerToolList" });
