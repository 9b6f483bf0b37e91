import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { selectAutovacuumOn, vacuumRuns } from "../store/statements/maintenance-statements.ts";

/**
 * The reconciler sweep's upkeep of `runs` where Postgres does none: vacuums it when autovacuum is off
 * (as on the machines this project is built on), and resolves whether it did. A run's row is
 * rewritten a dozen times in its life; until a vacuum, each rewrite that changes an indexed column
 * leaves index entries of the old version, and the lookups the hot path makes at every take of a run
 * (has the user a run waiting for admission?) step over all of them: 135 index pages a lookup once
 * 6,000 runs had parked. A vacuum of a table that changed little costs little (pages all visible are
 * skipped), but each vacuum makes every connection of every process plan again, at its next use,
 * each prepared statement that reads `runs` (store/create-prisma-client.ts): about 5 ms of Postgres'
 * CPU for the take of a run alone, on each of a worker's 20 connections. Where autovacuum is on, it is
 * left to it: the migration that made admission's index asks it to visit `runs` after 2,000 dead
 * versions. Postgres only warns, and vacuums nothing, for a role that does not own the table.
 */
export async function vacuumRunsWhereAutovacuumIsOff(prisma: PrismaClient): Promise<boolean> {
  const pool = sqlPoolOf(prisma);
  if (await selectAutovacuumOn(pool)) return false;
  await vacuumRuns(pool);
  return true;
}
