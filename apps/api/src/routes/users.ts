import { z } from "zod";
import { createUser, USER_ROLES, userNameSchema } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { createdUserSchema, meSchema } from "../schemas/user-schemas.ts";

const createUserBody = z
  .object({
    name: userNameSchema,
    role: z.enum(USER_ROLES).default("user"),
  })
  .meta({ id: "CreateUserRequest" });

export const userRoutes = [
  defineRoute({
    method: "get",
    path: "/api/me",
    operationId: "getMe",
    summary: "The caller",
    responses: { 200: { description: "the user the token belongs to", schema: meSchema } },
    handler: ({ user }) => ({ status: 200, body: { id: user.id, name: user.name, role: user.role } }),
  }),
  defineRoute({
    method: "post",
    path: "/api/users",
    operationId: "createUser",
    summary: "Create a user (admin)",
    access: "admin",
    body: createUserBody,
    responses: { 201: { description: "the user and its token, shown once (only its hash is stored)", schema: createdUserSchema } },
    errors: { 409: "`user_exists`: a user of that name exists" },
    handler: async ({ dependencies, body }) => {
      const user = await createUser(dependencies.prisma, body);
      return { status: 201, body: { id: user.id, name: user.name, role: user.role, token: user.token } };
    },
  }),
];
