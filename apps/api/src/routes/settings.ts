import { Router } from "express";
import { loadSettings, updateSettings } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { requireAdmin } from "../http/authenticate.ts";
import { refuseNulCharacters } from "../http/parse-body.ts";

export function settingsRouter(dependencies: ApiDependencies): Router {
  const router = Router();
  const { prisma } = dependencies;

  router.get("/api/settings", async (request, response) => {
    requireAdmin(request);
    response.json(await loadSettings(prisma));
  });

  router.patch("/api/settings", async (request, response) => {
    requireAdmin(request);
    refuseNulCharacters(request.body, "request body");
    response.json(await updateSettings(prisma, request.body));
  });

  return router;
}
