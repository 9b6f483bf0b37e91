import { z } from "zod";
import { AgentqError } from "../../errors/agentq-error.ts";
import { generateId } from "../../ids.ts";
import { mcpServerRegistrationSchema } from "../../mcp/mcp-server-registration.ts";
import { addMcpServer, listMcpServers, removeMcpServer } from "../../mcp/mcp-server-store.ts";
import { type LoadServiceStatusInput, loadServiceStatus } from "../../services/load-service-status.ts";
import { loadSettings, updateSettings } from "../../settings/agent-settings.ts";
import { type PrismaClient, sqlPoolOf } from "../../store/create-prisma-client.ts";
import { selectUserRole } from "../../store/statements/user-statements.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";

/**
 * add_mcp_server's arguments: one flat object (providers want an object at the top of a tool's
 * schema, not a union), checked against the REST body's union when the call runs. No env or headers:
 * a tool call's arguments are the model's text, kept in the transcript and its events, so secrets are
 * given over REST or in the console, where they are sealed and never shown again.
 */
const addMcpServerArguments = z.object({
  name: z.string().describe("1-24 lowercase letters, digits and dashes; part of the tools' names"),
  transport: z.enum(["stdio", "http"]),
  command: z.string().optional().describe("stdio: the program to start"),
  args: z.array(z.string()).optional().describe("stdio: its arguments"),
  network: z.boolean().optional().describe("stdio: share the host's network (default false)"),
  url: z.string().optional().describe("http: the Streamable HTTP endpoint"),
  enabled: z.boolean().optional(),
});

/** What the admin tools need of the process that runs them (the worker). */
export interface AdministrationControl {
  prisma: PrismaClient;
  /** What MCP servers' stored env and headers are sealed under (the approval secret). */
  deploymentSecret: string;
  queueCounts: LoadServiceStatusInput["queueCounts"];
  sandbox: LoadServiceStatusInput["sandbox"];
  now: () => Date;
}

/**
 * The administration family (API.md "Administration, MCP and services"): effect `admin`, so only
 * admins are offered them (policy/offered-tools.ts), and after taint every call pauses for approval.
 * Each call checks the run's user is still an admin (a role changed since the round began) before it
 * acts. `control` is null where tools are only listed (the API). There is no terminal tool.
 */
export function createAdminTools(control: AdministrationControl | null): ToolDefinition[] {
  const asAdmin = async (context: ToolContext, action: (administration: AdministrationControl) => Promise<ToolResult>): Promise<ToolResult> => {
    if (control === null) return { ok: false, error: "the administration tools are not available in this process" };
    const role = await selectUserRole(sqlPoolOf(control.prisma), context.userId);
    if (role !== "admin") return { ok: false, error: "this tool needs the admin role, and this run's user no longer has it" };
    try {
      return await action(control);
    } catch (error) {
      if (error instanceof AgentqError) return { ok: false, error: error.message, data: { code: error.code, ...error.details } };
      throw error;
    }
  };

  const getSettings: ToolDefinition<Record<string, never>> = {
    name: "get_settings",
    family: "admin",
    description: "Read the deployment's settings (loop guards, tool family switches, approval and job limits, web allow-list).",
    parameters: z.object({}),
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (_args, context) =>
      asAdmin(context, async (administration) => ({ ok: true, output: JSON.stringify(await loadSettings(administration.prisma), null, 2) })),
  };

  const updateSettingsTool: ToolDefinition<{ changes: Record<string, unknown> }> = {
    name: "update_settings",
    family: "admin",
    description:
      "Change deployment settings. `changes` holds only the settings to change (the names get_settings shows); numbers outside a " +
      "setting's range are clamped to it. The change is recorded in the audit log under your user.",
    parameters: z.object({
      changes: z.record(z.string(), z.unknown()).describe('The settings to change and their new values, e.g. {"agent_max_rounds": 30}.'),
    }),
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      asAdmin(context, async (administration) => {
        const stored = await updateSettings(administration.prisma, args.changes, { actorId: context.userId, auditDetails: { run_id: context.runId } });
        const shown = Object.fromEntries(Object.keys(args.changes).map((name) => [name, stored[name as keyof typeof stored]]));
        return { ok: true, output: `Settings changed; their stored values now:\n${JSON.stringify(shown, null, 2)}` };
      }),
    describeCall: (args) => `settings ${Object.keys(args.changes).join(", ")}`,
  };

  const serviceStatus: ToolDefinition<Record<string, never>> = {
    name: "service_status",
    family: "admin",
    description: "See what the deployment is doing: the worker processes, the run queue, runs by status, background jobs and the process sandbox.",
    parameters: z.object({}),
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (_args, context) =>
      asAdmin(context, async (administration) => {
        const status = await loadServiceStatus({
          prisma: administration.prisma,
          queueCounts: administration.queueCounts,
          sandbox: administration.sandbox,
          now: administration.now(),
        });
        return { ok: true, output: JSON.stringify(status, null, 2) };
      }),
  };

  const listMcpServersTool: ToolDefinition<Record<string, never>> = {
    name: "list_mcp_servers",
    family: "admin",
    description: "List the registered MCP servers with their transport, status (connected, connecting, failed), error and number of tools.",
    parameters: z.object({}),
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (_args, context) =>
      asAdmin(context, async (administration) => ({ ok: true, output: JSON.stringify(await listMcpServers(administration.prisma), null, 2) })),
  };

  const addMcpServerTool: ToolDefinition<z.infer<typeof addMcpServerArguments>> = {
    name: "add_mcp_server",
    family: "admin",
    description:
      "Register an MCP server whose tools every run is then offered as mcp__<name>__<tool>. transport stdio: a command the workers start " +
      "(args; no network unless network is true); transport http: a Streamable HTTP url. A server that needs secrets (env, headers) is " +
      "registered by an admin in the console or over REST instead: tool arguments are kept in the transcript.",
    parameters: addMcpServerArguments,
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      asAdmin(context, async (administration) => {
        // The REST body's rules: the transport decides which fields belong.
        const registration = mcpServerRegistrationSchema.safeParse(Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined)));
        if (!registration.success) {
          const issue = registration.error.issues[0];
          return { ok: false, error: `invalid registration: ${issue?.path.join(".") || "(arguments)"}: ${issue?.message ?? "bad value"}` };
        }
        const server = await addMcpServer(
          { prisma: administration.prisma, deploymentSecret: administration.deploymentSecret, generateId },
          registration.data,
          context.userId,
        );
        return { ok: true, output: `Registered MCP server ${server.name} (${server.transport}); workers connect to it within a few seconds.` };
      }),
    describeCall: (args) => `MCP server ${args.name}`,
  };

  const removeMcpServerTool: ToolDefinition<{ name: string }> = {
    name: "remove_mcp_server",
    family: "admin",
    description: "Remove a registered MCP server: workers disconnect and stop offering its tools within a few seconds.",
    parameters: z.object({ name: z.string().min(1).max(100).describe("The server's name, as list_mcp_servers shows it.") }),
    effects: ["admin"],
    taints: false,
    requiresWorkspace: false,
    execute: (args, context) =>
      asAdmin(context, async (administration) => {
        await removeMcpServer(administration.prisma, args.name, context.userId);
        return { ok: true, output: `Removed MCP server ${args.name}.` };
      }),
    describeCall: (args) => `MCP server ${args.name}`,
  };

  return [getSettings, updateSettingsTool, listMcpServersTool, addMcpServerTool, removeMcpServerTool, serviceStatus];
}
