import { z } from "zod";
import {
  createUser,
  dispatchRunsOfUser,
  getUserUsage,
  isAdmin,
  listUsers,
  NotFoundError,
  rotateUserToken,
  systemClock,
  updateUser,
  USER_ROLES,
  userNameSchema,
} from "@agentq/core";
import { defineRoute } from "../http/api-route.ts";
import { createdUserSchema, meSchema, rotatedTokenSchema, userListSchema, userRoleSchema, userSchema } from "../schemas/user-schemas.ts";

const createUserBody = z
  .object({
    name: userNameSchema,
    role: z.enum(USER_ROLES).default("user"),
  })
  .meta({ id: "CreateUserRequest" });

/** A per-user limit in a PATCH: a whole number in the setting's range, or null (back to the setting). */
const limitField = (min: number, max: number, description: string) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .nullable()
    .optional()
    .meta({ description: `${description}; null: the deployment's setting` });

const updateUserBody = z
  .strictObject({
    role: userRoleSchema.optional(),
    disabled: z.boolean().optional().meta({ description: "true: the user's tokens answer 401 from the next request on" }),
    max_active_runs: limitField(1, 100_000, "runs running or handed to workers at once"),
    runs_per_day: limitField(0, 10_000_000, "runs created per UTC day, 0 = no quota"),
    tokens_per_day: limitField(0, 2_000_000_000, "model tokens per UTC day, 0 = no quota"),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: "give at least one of `role`, `disabled`, `max_active_runs`, `runs_per_day`, `tokens_per_day`",
  })
  .meta({ id: "UpdateUserRequest" });

const USER_ID = "the user's id";

export const userRoutes = [
  defineRoute({
    method: "get",
    path: "/api/me",
    operationId: "getMe",
    summary: "The caller",
    responses: { 200: { description: "the user the token belongs to, with their usage and the limits that apply", schema: meSchema } },
    handler: async ({ dependencies, user }) => {
      const usage = await getUserUsage({ prisma: dependencies.prisma, clock: systemClock }, user.id);
      return { status: 200, body: { id: user.id, name: user.name, role: user.role, ...usage } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/users",
    operationId: "listUsers",
    summary: "Every user (admin)",
    access: "admin",
    responses: { 200: { description: "the users, oldest first, with their usage and the limits that apply", schema: userListSchema } },
    handler: async ({ dependencies }) => {
      const users = await listUsers(dependencies.prisma);
      const withUsage = [];
      for (const listed of users) {
        const { usage, limits } = await getUserUsage({ prisma: dependencies.prisma, clock: systemClock }, listed.id);
        withUsage.push({ ...listed, usage, limits });
      }
      return { status: 200, body: { users: withUsage } };
    },
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
    handler: async ({ dependencies, body, user: admin }) => {
      const user = await createUser(dependencies.prisma, body, { actorId: admin.id });
      return { status: 201, body: { id: user.id, name: user.name, role: user.role, token: user.token } };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/users/:id",
    operationId: "updateUser",
    summary: "Change a user's role or limits, or disable them (admin)",
    description:
      "A disabled user's tokens answer 401 at once (HTTP and the WebSocket upgrade); their runs are left to finish. A raised max_active_runs admits their waiting runs at once.",
    access: "admin",
    parameters: { id: USER_ID },
    body: updateUserBody,
    responses: { 200: { description: "the user as changed", schema: userSchema } },
    errors: { 409: "`last_admin`: the change would leave no enabled admin" },
    handler: async ({ dependencies, params, body, user }) => {
      const updated = await updateUser(dependencies.prisma, params.id, body, { actorId: user.id });
      if (body.max_active_runs !== undefined) {
        const schedule = dependencies.runs.schedule.bind(dependencies.runs);
        await dispatchRunsOfUser({ prisma: dependencies.prisma, clock: systemClock, logger: dependencies.logger, schedule }, { userId: updated.id });
      }
      return { status: 200, body: updated };
    },
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
      return { status: 201, body: { token: await rotateUserToken(dependencies.prisma, params.id, { actorId: user.id }) } };
    },
  }),
];
