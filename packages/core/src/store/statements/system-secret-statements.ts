import { z } from "zod";
import { queryParsed, queryRowCount, type SqlRunner } from "../sql-pool.ts";

/**
 * Stores the secret `name` unless one is stored already (concurrent first starts: the first insert
 * wins, the others change nothing). Returns the rows inserted (0 or 1).
 */
export async function insertSystemSecretIfAbsent(runner: SqlRunner, input: { name: string; value: string }): Promise<number> {
  return queryRowCount(runner, "INSERT INTO system_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [input.name, input.value]);
}

const secretRow = z.object({ value: z.string() });

/** The stored secret `name`; undefined when none is stored. */
export async function selectSystemSecret(runner: SqlRunner, name: string): Promise<string | undefined> {
  const [row] = await queryParsed(runner, "SELECT value FROM system_secrets WHERE name = $1", [name], secretRow);
  return row?.value;
}
