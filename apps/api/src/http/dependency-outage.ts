import { isConnectionError, UnavailableError } from "@agentq/core";

/** The dependencies whose outage turns a request into `503 unavailable` (never a 500). */
export type Dependency = "postgres" | "redis";

/** Probes each dependency (checkReadiness with a short timeout): the names of those that failed. */
export type ProbeDependencies = () => Promise<Dependency[]>;

const DEPENDENCY_NAMES: Record<Dependency, string> = { postgres: "Postgres", redis: "Redis" };

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
