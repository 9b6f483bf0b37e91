import { z } from "zod";
import { createUser, isAdmin, listUsers, NotFoundError, rotateUserToken, updateUser, USER_ROLES, userNameSchema } from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { createdUserSchema, meSchema, rotatedTokenSchema, userListSchema, userRoleSchema, userSchema } from "../schemas/user-schemas.ts";

const createUserBody = z
  .object({
    name: userNameSchema,
    role: z.enum(USER_ROLES).default("user"),
  })
  .meta({ id: "CreateUserRequest" });

// Strict: the limit fields of API.md's User (`max_active_runs`...) are refused by name until the
// quota work gives them a meaning, rather than accepted and ignored.
const updateUserBody = z
  .strictObject({
    role: userRoleSchema.optional(),
    disabled: z.boolean().optional().meta({ description: "true: the user's tokens answer 401 from the next request on" }),
  })
  .refine((body) => body.role !== undefined || body.disabled !== undefined, { message: "give `role`, `disabled` or both" })
  .meta({ id: "UpdateUserRequest" });

const USER_ID = "the user's id";

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
    method: "get",
    path: "/api/users",
    operationId: "listUsers",
    summary: "Every user (admin)",
    access: "admin",
    responses: { 200: { description: "the users, oldest first", schema: userListSchema } },
    handler: async ({ dependencies }) => ({ status: 200, body: { users: await listUsers(dependencies.prisma) } }),
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
  defineRoute({
    method: "patch",
    path: "/api/users/:id",
    operationId: "updateUser",
    summary: "Change a user's role or disable them (admin)",
    description: "A disabled user's tokens answer 401 at once (HTTP and the WebSocket upgrade); their runs are left to finish.",
    access: "admin",
    parameters: { id: USER_ID },
    body: updateUserBody,
    responses: { 200: { description: "the user as changed", schema: userSchema } },
    errors: { 409: "`last_admin`: the change would leave no enabled admin" },
    handler: async ({ dependencies, params, body }) => ({ status: 200, body: await updateUser(dependencies.prisma, params.id, body) }),
  }),
  defineRoute({
    method: "post",
    path: "/api/users/:id/token",
    operationId: "rotateUserToken",
    summary: "Replace a user's token (admin, or the user for themselves)",
    description: "The user's previous tokens stop working at once; the new one is shown in this answer only.",
    parameters: { id: USER_ID },
    responses: { 201: { description: "the new token", schema: rotatedTokenSchema } },
    errors: { 404: "`not_found`: no such user, or (for a non-admin) someone else" },
    handler: async ({ dependencies, user, params }) => {
      // Someone else's id is answered like a missing one for a non-admin: user ids stay private.
      if (!isAdmin(user) && params.id !== user.id) throw new NotFoundError("user", { user_id: params.id });
      return { status: 201, body: { token: await rotateUserToken(dependencies.prisma, params.id) } };
    },
  }),
];
