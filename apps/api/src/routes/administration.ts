import { z } from "zod";
import { listAuditEntries, loadServiceStatus, systemClock } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { auditPageSchema, serviceStatusSchema } from "../schemas/administration-schemas.ts";
import { limitQuery } from "../schemas/common-schemas.ts";

const auditQuery = z.object({
  limit: limitQuery(50, 500),
  before: z.string().min(1).max(500).optional().meta({ description: "the `next_before` of the previous page" }),
});

export const administrationRoutes = [
  defineRoute({
    method: "get",
    path: "/api/services",
    operationId: "getServices",
    summary: "What the deployment is doing (admin)",
    description: "Live workers, the run queue, runs by status, background jobs and the process sandbox. Answers 200 with null queue counts when Redis is down.",
    access: "admin",
    responses: { 200: { description: "the services' status", schema: serviceStatusSchema } },
    handler: async ({ dependencies }) => {
      const { sandbox } = dependencies.runs;
      return {
        status: 200,
        body: await loadServiceStatus({
          prisma: dependencies.prisma,
          queueCounts: () => dependencies.runs.queueCounts(),
          sandbox: sandbox.available ? { available: true } : { available: false, reason: sandbox.reason },
          now: systemClock(),
        }),
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/audit",
    operationId: "listAuditEntries",
    summary: "The audit log (admin)",
    description: "Approval decisions, settings changes, MCP server changes and user changes, newest first. Pages follow with `before` = `next_before`.",
    access: "admin",
    query: auditQuery,
    responses: { 200: { description: "a page of entries", schema: auditPageSchema } },
    handler: async ({ dependencies, query }) => ({
      status: 200,
      body: await listAuditEntries(dependencies.prisma, { limit: query.limit, before: query.before }),
    }),
  }),
];
