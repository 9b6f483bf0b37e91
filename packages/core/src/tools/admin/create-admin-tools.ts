import { z } from "zod";
import { AgentqError } from "../../errors/agentq-error.ts";
import { type LoadServiceStatusInput, loadServiceStatus } from "../../services/load-service-status.ts";
import { loadSettings, updateSettings } from "../../settings/agent-settings.ts";
import { type PrismaClient, sqlPoolOf } from "../../store/create-prisma-client.ts";
import { selectUserRole } from "../../store/statements/user-statements.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tool-definition.ts";

/** What the admin tools need of the process that runs them (the worker). */
export interface AdministrationControl {
  prisma: PrismaClient;
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

  return [getSettings, updateSettingsTool, serviceStatus];
}
