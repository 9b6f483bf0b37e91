import { loadSettings, updateSettings } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { settingsPatchBodySchema, settingsSchema } from "../schemas/settings-schemas.ts";

export const settingsRoutes = [
  defineRoute({
    method: "get",
    path: "/api/settings",
    operationId: "getSettings",
    summary: "The settings (admin)",
    access: "admin",
    responses: { 200: { description: "every setting, stored or default", schema: settingsSchema } },
    handler: async ({ dependencies }) => ({ status: 200, body: await loadSettings(dependencies.prisma) }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/settings",
    operationId: "updateSettings",
    summary: "Change settings (admin)",
    access: "admin",
    body: settingsPatchBodySchema,
    responses: { 200: { description: "the stored settings, each clamped to its range", schema: settingsSchema } },
    handler: async ({ dependencies, body, user }) => ({ status: 200, body: await updateSettings(dependencies.prisma, body, { actorId: user.id }) }),
  }),
];
