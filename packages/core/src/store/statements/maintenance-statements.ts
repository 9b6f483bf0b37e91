import { z } from "zod";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

// Upkeep of the runs table where Postgres does none (runs/vacuum-runs.ts).

const autovacuumRow = z.object({ autovacuum: z.boolean() });

/** Whether Postgres vacuums on its own: the `autovacuum` setting. */
export async function selectAutovacuumOn(runner: SqlRunner): Promise<boolean> {
  const [row] = await queryParsed(runner, "SELECT current_setting('autovacuum')::boolean AS autovacuum", [], autovacuumRow);
  return row?.autovacuum ?? true;
}

/** VACUUM of `runs`, skipped at once if another session is vacuuming it (a worker's sweep on another host). */
export async function vacuumRuns(runner: SqlRunner): Promise<void> {
  await runner.query("VACUUM (SKIP_LOCKED) runs");
}
