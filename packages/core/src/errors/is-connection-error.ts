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
 * Whether an error (or any error in its `cause` chain, or the first of an AggregateError's, as Node
 * reports a connection tried on several addresses) says a connection to Postgres or Redis failed:
 * Node's socket codes, Postgres' SQLSTATE class 08 (connection exception) and 57P01–57P03 (the server
 * is shutting down or starting), and the messages pg, Prisma and ioredis use for a lost connection.
 * Bounded: chains are followed at most 8 levels deep. The API's outage answer (503) and the start-up
 * failures of both processes decide with it.
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
    current = current instanceof AggregateError && current.errors.length > 0 ? current.errors[0] : candidate.cause;
  }
  return false;
}
