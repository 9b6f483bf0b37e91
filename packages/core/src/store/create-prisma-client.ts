import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export { PrismaClient };
export type { Prisma } from "./generated/client.ts";

export interface CreatePrismaClientOptions {
  databaseUrl: string;
  /** Pool size of the pg driver. Default 10: pg's own default, enough for one process. */
  poolSize?: number;
}

/** A Prisma client over the pg driver adapter (Prisma 7: no engine binary). */
export function createPrismaClient(options: CreatePrismaClientOptions): PrismaClient {
  const adapter = new PrismaPg({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
  return new PrismaClient({ adapter });
}

/** A Prisma client or an interactive transaction client: functions that write accept either. */
export type Db = PrismaClient | Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
