import { Router } from "express";
import { z } from "zod";
import { createUser, USER_ROLES, userNameSchema } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { currentUser, requireAdmin } from "../http/authenticate.ts";
import { parseRequest } from "../http/parse-body.ts";

const createUserBody = z.object({
  name: userNameSchema,
  role: z.enum(USER_ROLES).default("user"),
});

export function usersRouter(dependencies: ApiDependencies): Router {
  const router = Router();

  router.get("/api/me", (request, response) => {
    const { id, name, role } = currentUser(request);
    response.json({ id, name, role });
  });

  router.post("/api/users", async (request, response) => {
    requireAdmin(request);
    const body = parseRequest(createUserBody, request.body);
    const user = await createUser(dependencies.prisma, body);
    response.status(201).json({ id: user.id, name: user.name, role: user.role, token: user.token });
  });

  return router;
}
