import { z } from "zod";
import { USER_ROLES } from "@agentq/core";
import { timestamp } from "./common-schemas.ts";

export const userRoleSchema = z.enum(USER_ROLES).meta({ id: "UserRole" });

/** GET /api/me. */
export const meSchema = z.object({ id: z.string(), name: z.string(), role: userRoleSchema }).meta({ id: "Me" });

/** POST /api/users: the token is shown here once; only its hash is stored. */
export const createdUserSchema = z
  .object({ id: z.string(), name: z.string(), role: userRoleSchema, token: z.string().meta({ description: "the bearer token, shown once" }) })
  .meta({ id: "CreatedUser" });

/**
 * A user as admins see it (GET /api/users, PATCH /api/users/:id). API.md's User also has the limits
 * `max_active_runs`, `runs_per_day` and `tokens_per_day`: they come with the quota work, not yet.
 */
export const userSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: userRoleSchema,
    disabled: z.boolean().meta({ description: "a disabled user's tokens answer 401; their runs are left to finish" }),
    created_at: timestamp(),
  })
  .meta({ id: "User" });

export const userListSchema = z.object({ users: z.array(userSchema).meta({ description: "oldest first" }) }).meta({ id: "UserList" });

/** POST /api/users/:id/token: the new token, shown once. */
export const rotatedTokenSchema = z
  .object({ token: z.string().meta({ description: "the new bearer token, shown once; the user's previous tokens no longer work" }) })
  .meta({ id: "RotatedToken" });
