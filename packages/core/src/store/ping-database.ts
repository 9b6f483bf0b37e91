import { type PrismaClient, sqlPoolOf } from "./create-prisma-client.ts";
import { selectOne } from "./statements/readiness-statements.ts";

/** The cheapest round trip to Postgres (readiness and outage probes): rejects when it does not answer. */
export function pingDatabase(prisma: PrismaClient): Promise<void> {
  return selectOne(sqlPoolOf(prisma));
}
