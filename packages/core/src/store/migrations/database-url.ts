/** The parts of a Postgres URL that are safe to print: never the password. */
export interface DatabaseUrlParts {
  host: string;
  port: string;
  database: string;
  user: string;
}

/** Reads host, port, database and user from a `postgresql://` URL, with libpq's defaults. */
export function describeDatabaseUrl(databaseUrl: string): DatabaseUrlParts {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname || "localhost",
    port: url.port || "5432",
    database: decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "postgres",
    user: decodeURIComponent(url.username) || "postgres",
  };
}

/** The URL with its password replaced, for logs and error messages. */
export function redactDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password !== "") url.password = "REDACTED";
    return url.toString();
  } catch {
    return "<unparseable database URL>";
  }
}

/** The same server and credentials, another database (the maintenance database, a clone). */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}
