import { UnavailableError } from "@agentq/core";

/** The dependencies whose outage turns a request into `503 unavailable` (never a 500). */
export type Dependency = "postgres" | "redis";

/** Probes each dependency (checkReadiness with a short timeout): the names of those that failed. */
export type ProbeDependencies = () => Promise<Dependency[]>;

const DEPENDENCY_NAMES: Record<Dependency, string> = { postgres: "Postgres", redis: "Redis" };

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** Messages of pg, Prisma's pg adapter and ioredis when a connection is gone. */
const CONNECTION_ERROR_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Connection is closed/i,
  /max retries per request/i,
  /Can't reach database server/i,
  /the database system is (shutting down|starting up|in recovery mode)/i,
  /server closed the connection unexpectedly/i,
];

/**
 * Whether an error (or any error in its `cause` chain) says a connection to a dependency failed:
 * Node's socket codes, Postgres' SQLSTATE class 08 (connection exception) and 57P01–57P03 (the
 * server is shutting down or starting), and the messages pg, Prisma and ioredis use for a lost
 * connection. Bounded: cause chains are followed at most 8 levels deep.
 */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth += 1) {
    const candidate = current as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; originalCode?: unknown };
    for (const code of [candidate.code, candidate.originalCode]) {
      if (typeof code !== "string") continue;
      if (CONNECTION_ERROR_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code)) return true;
    }
    if (candidate.name === "MaxRetriesPerRequestError") return true;
    if (typeof candidate.message === "string" && CONNECTION_ERROR_MESSAGES.some((pattern) => pattern.test(candidate.message as string))) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * The 503 for a request that failed because a dependency is down, or undefined when the failure is
 * something else. Asks the probe which dependency is unreachable right now (so the message names
 * it, whichever code path failed); a connection error with both dependencies answering again is
 * still a 503 (the outage was brief: retrying works).
 */
export async function dependencyOutage(error: unknown, probe: ProbeDependencies): Promise<UnavailableError | undefined> {
  const failed = await probe().catch((): Dependency[] => []);
  if (failed.length > 0) {
    const names = failed.map((dependency) => DEPENDENCY_NAMES[dependency]).join(" and ");
    return new UnavailableError(`${names} ${failed.length > 1 ? "are" : "is"} unreachable; nothing was changed, try again shortly`, {
      dependencies: failed,
    });
  }
  if (isConnectionError(error)) {
    return new UnavailableError("a connection to Postgres or Redis failed; nothing was changed, try again shortly", { dependencies: [] });
  }
  return undefined;
}
