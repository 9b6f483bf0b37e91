import { z } from "zod";
import { queryParsed, type SqlRunner } from "../sql-pool.ts";

const probeRow = z.object({ one: z.literal(1) });

/** The cheapest round trip to Postgres (the API's readiness and outage probes): throws when it does not answer. */
export async function selectOne(runner: SqlRunner): Promise<void> {
  const [row] = await queryParsed(runner, "SELECT 1 AS one", [], probeRow);
  if (!row) throw new Error("SELECT 1 returned no row");
}
