import { z } from "zod";
import { type RequestCaller, USER_ROLES, type UserRole } from "../../users/user.ts";
import { preparedSql, queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

/** Tokens (`t`) with their enabled users (`u`): the one rule of every authentication, with `t.token_hash = <the hash>`. */
export const TOKENS_OF_ENABLED_USERS = "api_tokens AS t JOIN users AS u ON u.id = t.user_id AND NOT u.disabled";

/**
 * The enabled user (id, name, role) of the token whose hash is `hashParameter`: every authentication's
 * query, alone here and inside the statements that authenticate their own request (a decision's read).
 */
export function enabledUserOfTokenSql(hashParameter: string): string {
  return `SELECT u.id, u.name, u.role::text AS role FROM ${TOKENS_OF_ENABLED_USERS} WHERE t.token_hash = ${hashParameter}`;
}

/**
 * The caller of a statement that authenticates its own request, as rows (id, name, role): the user
 * `userParameter` (authenticated already), or, when `hashParameter` is not null, the enabled user of
 * that token (enabledUserOfTokenSql). No row: no such caller. `callerParameters` gives the two values.
 */
export function requestCallerSql(userParameter: string, hashParameter: string): string {
  return `${enabledUserOfTokenSql(hashParameter)}
  UNION ALL
  SELECT u.id, u.name, u.role::text AS role FROM users AS u WHERE u.id = ${userParameter} AND ${hashParameter}::text IS NULL`;
}

/** The caller of requestCallerSql's relation `relation` as one JSON object (an authenticatedUserRow). */
export function callerJsonSql(relation: string): string {
  return `json_build_object('id', ${relation}.id, 'name', ${relation}.name, 'role', ${relation}.role)`;
}

/** requestCallerSql's two parameters for `caller`: the user's id and the token's hash, one of them null. */
export function callerParameters(caller: RequestCaller): { userId: string | null; tokenHash: string | null } {
  return "userId" in caller ? { userId: caller.userId, tokenHash: null } : { userId: null, tokenHash: caller.tokenHash };
}

const USER_BY_TOKEN_SQL = preparedSql("user_by_token", enabledUserOfTokenSql("$1"));

/** A row of enabledUserOfTokenSql: the authenticated user. */
export const authenticatedUserRow = z.object({ id: z.string(), name: z.string(), role: z.enum(USER_ROLES) });

/** The enabled user an API token's hash belongs to; no row: an unknown token or a disabled user. Every request asks this: prepared. */
export async function selectUserByTokenHash(runner: SqlRunner, tokenHash: string): Promise<z.output<typeof authenticatedUserRow> | undefined> {
  const [row] = await queryParsed(runner, USER_BY_TOKEN_SQL, [tokenHash], authenticatedUserRow);
  return row;
}

// The admin bootstrap (users/bootstrap-admin.ts), run by every API instance at start: plain SQL, so
// that starting the API does not load Prisma's query compiler.

/** Inserts the user unless the name (or id) is taken; returns the rows inserted (0 or 1). */
export async function insertUserIfAbsent(runner: SqlRunner, input: { id: string; name: string; role: UserRole }): Promise<number> {
  return queryRowCount(runner, 'INSERT INTO users (id, name, role) VALUES ($1, $2, $3::"UserRole") ON CONFLICT DO NOTHING', [input.id, input.name, input.role]);
}

const userByNameRow = z.object({ id: z.string(), role: z.enum(USER_ROLES) });

export async function selectUserByName(runner: SqlRunner, name: string): Promise<z.output<typeof userByNameRow> | undefined> {
  const [row] = await queryParsed(runner, "SELECT id, role::text AS role FROM users WHERE name = $1", [name], userByNameRow);
  return row;
}

export async function updateUserRole(runner: SqlRunner, input: { userId: string; role: UserRole }): Promise<number> {
  return queryRowCount(runner, 'UPDATE users SET role = $2::"UserRole" WHERE id = $1', [input.userId, input.role]);
}

/** Registers a token's hash for the user unless that hash is registered already; returns the rows inserted. */
export async function insertApiTokenIfAbsent(runner: SqlRunner, input: { id: string; userId: string; tokenHash: string }): Promise<number> {
  return queryRowCount(runner, "INSERT INTO api_tokens (id, user_id, token_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
    input.id,
    input.userId,
    input.tokenHash,
  ]);
}

const tokenOwnerRow = z.object({ user_id: z.string() });

/** The user a token hash is registered for; undefined when none. */
export async function selectTokenOwner(runner: SqlRunner, tokenHash: string): Promise<string | undefined> {
  const [row] = await queryParsed(runner, "SELECT user_id FROM api_tokens WHERE token_hash = $1", [tokenHash], tokenOwnerRow);
  return row?.user_id;
}

// User management (users/list-users.ts, update-user.ts, rotate-user-token.ts): plain SQL like the bootstrap above.

const userRecordRow = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  disabled: z.boolean(),
  max_active_runs: z.number().nullable(),
  runs_per_day: z.number().nullable(),
  tokens_per_day: z.number().nullable(),
  created_at: z.date(),
});

export type UserRecordRow = z.output<typeof userRecordRow>;

const USER_RECORD_COLUMNS = "id, name, role::text AS role, disabled, max_active_runs, runs_per_day, tokens_per_day, created_at";

/** Every user, oldest first (a deployment has tens of users, not thousands: no paging). */
export async function selectUsers(runner: SqlRunner): Promise<UserRecordRow[]> {
  return queryParsed(runner, `SELECT ${USER_RECORD_COLUMNS} FROM users ORDER BY created_at, id`, [], userRecordRow);
}

/** One user, locked for the rest of the transaction when `forUpdate`. */
export async function selectUserRecord(runner: SqlRunner, userId: string, options: { forUpdate?: boolean } = {}): Promise<UserRecordRow | undefined> {
  const lock = options.forUpdate ? " FOR UPDATE" : "";
  const [row] = await queryParsed(runner, `SELECT ${USER_RECORD_COLUMNS} FROM users WHERE id = $1${lock}`, [userId], userRecordRow);
  return row;
}

const idRow = z.object({ id: z.string() });

/**
 * The ids of the enabled admins, their rows locked: two transactions that each demote or disable
 * a different admin serialize here, so the second one sees the first one's change.
 */
export async function lockEnabledAdmins(runner: SqlRunner): Promise<string[]> {
  const rows = await queryParsed(runner, "SELECT id FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE", [], idRow);
  return rows.map((row) => row.id);
}

/** Sets the user's role, disabled flag and limits (null: the deployment's setting). */
export async function updateUserAccess(
  runner: SqlRunner,
  input: { userId: string; role: UserRole; disabled: boolean; maxActiveRuns: number | null; runsPerDay: number | null; tokensPerDay: number | null },
): Promise<UserRecordRow | undefined> {
  const [row] = await queryParsed(
    runner,
    `UPDATE users SET role = $2::"UserRole", disabled = $3, max_active_runs = $4, runs_per_day = $5, tokens_per_day = $6 WHERE id = $1
    RETURNING ${USER_RECORD_COLUMNS}`,
    [input.userId, input.role, input.disabled, input.maxActiveRuns, input.runsPerDay, input.tokensPerDay],
    userRecordRow,
  );
  return row;
}

/** Forgets every token of the user (a rotation replaces them with one new token). */
export async function deleteUserTokens(runner: SqlRunner, userId: string): Promise<number> {
  return queryRowCount(runner, "DELETE FROM api_tokens WHERE user_id = $1", [userId]);
}

const userRoleRow = z.object({ role: z.enum(USER_ROLES) });

/** The role of an enabled user; undefined for a disabled or unknown one (the admin tools' check at each call). */
export async function selectUserRole(runner: SqlRunner, userId: string): Promise<UserRole | undefined> {
  const [row] = await queryParsed(runner, "SELECT role::text AS role FROM users WHERE id = $1 AND NOT disabled", [userId], userRoleRow);
  return row?.role;
}
