import { z } from "zod";
import { USER_ROLES } from "@agentq/core";

export const userRoleSchema = z.enum(USER_ROLES).meta({ id: "UserRole" });

/** GET /api/me. */
export const meSchema = z.object({ id: z.string(), name: z.string(), role: userRoleSchema }).meta({ id: "Me" });

/** POST /api/users: the token is shown here once; only its hash is stored. */
export const createdUserSchema = z
  .object({ id: z.string(), name: z.string(), role: userRoleSchema, token: z.string().meta({ description: "the bearer token, shown once" }) })
  .meta({ id: "CreatedUser" });
