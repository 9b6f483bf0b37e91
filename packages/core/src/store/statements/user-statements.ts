import { z } from "zod";
import { USER_ROLES } from "../../users/user.ts";
import { preparedSql, queryParsed, type SqlRunner } from "../sql-pool.ts";

const USER_BY_TOKEN_SQL = preparedSql(
  "user_by_token",
  "SELECT u.id, u.name, u.role::text AS role FROM api_tokens AS t JOIN users AS u ON u.id = t.user_id WHERE t.token_hash = $1",
);

const userRow = z.object({ id: z.string(), name: z.string(), role: z.enum(USER_ROLES) });

/** The user an API token's hash belongs to; no row: an unknown token. Every request asks this: prepared. */
export async function selectUserByTokenHash(runner: SqlRunner, tokenHash: string): Promise<z.output<typeof userRow> | undefined> {
  const [row] = await queryParsed(runner, USER_BY_TOKEN_SQL, [tokenHash], userRow);
  return row;
}
