import { isConnectionError } from "../errors/is-connection-error.ts";
import { redactSecrets } from "../logging/redact-secrets.ts";
import { parseRedisUrl } from "./parse-redis-url.ts";

/** What a process was starting against: used to say which setting a failure is about. */
export interface StartupTargets {
  host?: string;
  port?: number;
  databaseUrl?: string;
  redisUrl?: string;
}

export interface StartupFailure {
  /** What went wrong and what to do, naming the environment variable to check. */
  message: string;
  /** The environment variables the failure is about (empty: none in particular). */
  variables: string[];
}

/**
 * Turns an error that stopped a process at start into a message that says what to set: a port in
 * use (PORT, HOST), a Postgres or Redis that does not answer (DATABASE_URL, REDIS_URL), a database
 * that refuses the credentials or does not exist. Anything else keeps its own message. Secrets in
 * URLs are never repeated.
 */
export function describeStartupFailure(error: unknown, targets: StartupTargets): StartupFailure {
  const code = errorCode(error);
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const address = `${targets.host ?? "0.0.0.0"}:${targets.port ?? "?"}`;
  if (code === "EADDRINUSE") {
    return {
      message: `${address} is already in use (another agentq, or another program): stop it, or set PORT (and HOST) to a free address`,
      variables: ["PORT", "HOST"],
    };
  }
  if (code === "EACCES" && syscallOf(error) === "listen") {
    return { message: `not allowed to listen on ${address}: set PORT to 1024 or above, or HOST to an address of this machine`, variables: ["PORT", "HOST"] };
  }
  if (code === "EADDRNOTAVAIL") return { message: `${address} is not an address of this machine: set HOST`, variables: ["HOST"] };
  const database = endpointOf(targets.databaseUrl, 5432);
  const redis = redisEndpointOf(targets.redisUrl);
  if (code === "28P01" || code === "28000") {
    return {
      message: `Postgres at ${database?.label ?? "DATABASE_URL"} refused the credentials (${message}): check the user and password in DATABASE_URL`,
      variables: ["DATABASE_URL"],
    };
  }
  if (code === "3D000") {
    return {
      message: `the database in DATABASE_URL does not exist (${message}): run npm run migrate, which creates it where the role may`,
      variables: ["DATABASE_URL"],
    };
  }
  if (isConnectionError(error)) {
    const reached = reachedEndpoint(error);
    if (redis && ((reached !== undefined && redis.endpoints.includes(reached)) || /redis/i.test(message))) {
      return { message: `Redis at ${redis.label} does not answer (${code ?? message}): start it, or set REDIS_URL`, variables: ["REDIS_URL"] };
    }
    if (database && (reached === database.endpoint || reached === undefined)) {
      return { message: `Postgres at ${database.label} does not answer (${code ?? message}): start it, or set DATABASE_URL`, variables: ["DATABASE_URL"] };
    }
  }
  return { message, variables: [] };
}

function errorCode(error: unknown): string | undefined {
  // Some clients wrap the socket error (an AggregateError of each address tried, Prisma's cause).
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (typeof current === "object" && "code" in current && typeof current.code === "string") return current.code;
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    else current = typeof current === "object" && "cause" in current ? current.cause : undefined;
  }
  return undefined;
}

function syscallOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "syscall" in error && typeof error.syscall === "string" ? error.syscall : undefined;
}

/** `host:port` of the socket the error is about, when it says. */
function reachedEndpoint(error: unknown): string | undefined {
  const first = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  if (typeof first !== "object" || first === null || !("port" in first)) return undefined;
  const address = "address" in first && typeof first.address === "string" ? first.address : undefined;
  return address ? `${normalizeHost(address)}:${String(first.port)}` : undefined;
}

/** A Redis server's endpoint, or every seed node of a cluster (redis+cluster://a:1,b:2). */
function redisEndpointOf(url: string | undefined): { endpoints: string[]; label: string } | undefined {
  if (!url) return undefined;
  let target: ReturnType<typeof parseRedisUrl>;
  try {
    target = parseRedisUrl(url);
  } catch {
    return undefined;
  }
  if (target.kind === "server") {
    const server = endpointOf(url, 6379);
    return server && { endpoints: [server.endpoint], label: server.label };
  }
  return {
    endpoints: target.nodes.map((node) => `${normalizeHost(node.host)}:${node.port}`),
    label: `the cluster nodes ${target.nodes.map((node) => `${node.host}:${node.port}`).join(",")}`,
  };
}

function endpointOf(url: string | undefined, defaultPort: number): { endpoint: string; label: string } | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    const endpoint = `${normalizeHost(parsed.hostname || "localhost")}:${parsed.port || defaultPort}`;
    return { endpoint, label: `${parsed.hostname || "localhost"}:${parsed.port || defaultPort}` };
  } catch {
    return undefined;
  }
}

/** `localhost`, `127.0.0.1` and `::1` name the same endpoint for this purpose. */
function normalizeHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || bare === "127.0.0.1" ? "loopback" : bare;
}
