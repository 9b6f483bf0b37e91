import { z } from "zod";
import { USER_ROLES } from "@agentq/core";
import { timestamp } from "./common-schemas.ts";

export const userRoleSchema = z.enum(USER_ROLES).meta({ id: "UserRole" });

const limitNumber = (description: string) => z.number().int().meta({ description });

/** The limits that apply to a user (their own, else the deployment's settings); 0 = no quota. */
export const userLimitsSchema = z
  .object({
    max_active_runs: limitNumber("runs running or handed to workers at once; more stay queued"),
    runs_per_day: limitNumber("runs created per UTC day; 0 = no quota"),
    tokens_per_day: limitNumber("model tokens (input + output) of the runs created in a UTC day; 0 = no quota"),
  })
  .meta({ id: "UserLimits" });

/** What a user has used: active runs now, and today's (UTC) runs and tokens. */
export const userUsageSchema = z
  .object({
    active_runs: z.number().int().meta({ description: "running, or queued and handed to workers (awaiting approval does not count)" }),
    runs_today: z.number().int().meta({ description: "runs created since the last UTC midnight" }),
    tokens_today: z.number().meta({ description: "model tokens of the runs created since the last UTC midnight" }),
  })
  .meta({ id: "UserUsage" });

/** GET /api/me. */
export const meSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: userRoleSchema,
    usage: userUsageSchema,
    limits: userLimitsSchema,
    resets_at: timestamp().meta({ description: "when runs_today and tokens_today start again (the next UTC midnight)" }),
  })
  .meta({ id: "Me" });

/** POST /api/users: the token is shown here once; only its hash is stored. */
export const createdUserSchema = z
  .object({ id: z.string(), name: z.string(), role: userRoleSchema, token: z.string().meta({ description: "the bearer token, shown once" }) })
  .meta({ id: "CreatedUser" });

const ownLimit = (description: string) =>
  z
    .number()
    .int()
    .nullable()
    .meta({ description: `${description}; null: the deployment's setting` });

/** A user as admins see it (GET /api/users, PATCH /api/users/:id). */
export const userSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: userRoleSchema,
    disabled: z.boolean().meta({ description: "a disabled user's tokens answer 401; their runs are left to finish" }),
    max_active_runs: ownLimit("the user's own max_active_runs"),
    runs_per_day: ownLimit("the user's own daily run quota (0 = none)"),
    tokens_per_day: ownLimit("the user's own daily token quota (0 = none)"),
    created_at: timestamp(),
  })
  .meta({ id: "User" });

/** GET /api/users: each user with the limits that apply to them and their usage (never their chats). */
export const userWithUsageSchema = userSchema.extend({ usage: userUsageSchema, limits: userLimitsSchema }).meta({ id: "UserWithUsage" });

export const userListSchema = z.object({ users: z.array(userWithUsageSchema).meta({ description: "oldest first" }) }).meta({ id: "UserList" });

/** POST /api/users/:id/token: the new token, shown once. */
export const rotatedTokenSchema = z
  .object({ token: z.string().meta({ description: "the new bearer token, shown once; the user's previous tokens no longer work" }) })
  .meta({ id: "RotatedToken" });
