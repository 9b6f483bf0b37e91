import { z } from "zod";

export const USER_ROLES = ["admin", "user"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The caller of a request, as routes see it. */
export interface AuthenticatedUser {
  id: string;
  name: string;
  role: UserRole;
}

/**
 * Who a request comes from, as a statement that finds its user is given it: a user authenticated
 * already, or the hash of the request's bearer token (users/api-token.ts) for a statement that is the
 * request's authentication too (a decision's read).
 */
export type RequestCaller = { userId: string } | { tokenHash: string };

/** User names appear in logs and URLs: keep them short and plain. */
export const userNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a user name is 1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit");

export function isAdmin(user: AuthenticatedUser): boolean {
  return user.role === "admin";
}
