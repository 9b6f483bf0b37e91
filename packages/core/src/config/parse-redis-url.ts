/**
 * `REDIS_URL` (API.md): one server, `redis://[user:password@]host:port[/db]` (`rediss://` for TLS),
 * or a Redis Cluster, `redis+cluster://[user:password@]host:port,host:port,...` (`rediss+cluster://`
 * for TLS). The cluster's nodes are only where the client starts: it learns the rest from them.
 */
export type RedisTarget =
  | { kind: "server"; url: string }
  | {
      kind: "cluster";
      nodes: { host: string; port: number }[];
      tls: boolean;
      username: string | undefined;
      password: string | undefined;
    };

const SERVER_PROTOCOLS = ["redis:", "rediss:"];
const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(.*)$/i;

/** Thrown for a REDIS_URL agentq cannot use; the message says what was expected (never the URL: it may hold a password). */
export class RedisUrlError extends Error {}

export function isClusterRedisUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url);
}

export function parseRedisUrl(url: string): RedisTarget {
  const cluster = CLUSTER_SCHEME.exec(url);
  if (!cluster) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new RedisUrlError("expected a URL starting with redis://, rediss://, redis+cluster:// or rediss+cluster://");
    }
    if (!SERVER_PROTOCOLS.includes(protocol))
      throw new RedisUrlError("expected a URL starting with redis://, rediss://, redis+cluster:// or rediss+cluster://");
    return { kind: "server", url };
  }
  const [, scheme = "redis", rest = ""] = cluster;
  // `new URL` cannot read a host list: split it by hand. Credentials end at the last `@` before the path.
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const path = authorityEnd === -1 ? "" : rest.slice(authorityEnd).replace(/[?#].*$/, "");
  if (path !== "" && path !== "/" && path !== "/0") throw new RedisUrlError("a Redis Cluster has only database 0: remove the /db part of the URL");
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? undefined : authority.slice(0, at);
  const hostList = at === -1 ? authority : authority.slice(at + 1);
  const nodes = hostList.split(",").map((entry) => parseNode(entry.trim()));
  if (nodes.length === 0) throw new RedisUrlError("expected at least one host:port after redis+cluster://");
  let username: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":");
    const rawUser = colon === -1 ? userinfo : userinfo.slice(0, colon);
    const rawPassword = colon === -1 ? undefined : userinfo.slice(colon + 1);
    try {
      username = rawUser === "" ? undefined : decodeURIComponent(rawUser);
      password = rawPassword === undefined || rawPassword === "" ? undefined : decodeURIComponent(rawPassword);
    } catch {
      throw new RedisUrlError("the user or password of the URL is not valid percent-encoding");
    }
  }
  return { kind: "cluster", nodes, tls: scheme.toLowerCase() === "rediss", username, password };
}

function parseNode(entry: string): { host: string; port: number } {
  // host:port, [v6]:port, or host alone (port 6379).
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+)(?::(\d{1,5}))?$/.exec(entry);
  const port = Number(match?.[2] ?? 6379);
  if (!match?.[1] || port < 1 || port > 65535) throw new RedisUrlError("expected the cluster's nodes as host:port separated by commas");
  return { host: match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * The hash tag Redis Cluster hashes a key by: the text between the first `{` and the first `}`
 * after it, when not empty. Keys with the same tag share a slot; a key without one is hashed whole.
 */
export function hashTagOf(key: string): string | undefined {
  const open = key.indexOf("{");
  if (open === -1) return undefined;
  const close = key.indexOf("}", open + 1);
  if (close === -1 || close === open + 1) return undefined;
  return key.slice(open + 1, close);
}
