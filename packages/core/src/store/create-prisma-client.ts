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

/**
 * Options of every interactive transaction. Prisma's defaults (wait 2 s for a connection, abort
 * after 5 s) turn a busy moment into a failed request; these transactions are short, so the limits
 * only guard against a stuck one.
 */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;
