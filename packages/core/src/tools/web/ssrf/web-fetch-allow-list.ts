import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { parseIpAddress } from "./parse-ip-address.ts";

/**
 * One entry of the `web_fetch_allow` setting: a host name, an IP address or a CIDR range, each
 * with an optional port (`"localhost:3000"`, `"127.0.0.1:8080"`, `"10.0.0.0/8"`, `"[::1]:8080"`,
 * `"[fd00::/8]:443"`). Without a port every port matches.
 */
export type WebFetchAllowEntry =
  | { kind: "host"; hostname: string; port: number | undefined; source: string }
  | { kind: "network"; network: [ipaddr.IPv4 | ipaddr.IPv6, number]; port: number | undefined; source: string };

/** Where a request is about to go: the URL's host and port, and (once known) the address. */
export interface FetchDestination {
  /** The WHATWG-normalized host name (brackets removed for IPv6 literals). */
  hostname: string;
  port: number;
  /** The address about to be connected to; absent while only the host name is being judged. */
  address?: string;
}

/** Parses one entry; `undefined` when it is not a host, address or range (such entries allow nothing). */
export function parseWebFetchAllowEntry(entry: string): WebFetchAllowEntry | undefined {
  const source = entry;
  const text = entry.trim();
  if (text === "") return undefined;
  const split = splitPort(text);
  if (split === undefined) return undefined;
  const { host, port } = split;
  if (host.includes("/")) {
    if (!ipaddr.isValidCIDR(host)) return undefined;
    const [address, prefixLength] = ipaddr.parseCIDR(host);
    return { kind: "network", network: [normalizeAddress(address), mappedPrefix(address, prefixLength)], port, source };
  }
  const literal = parseIpAddress(host);
  if (literal !== undefined) {
    const address = normalizeAddress(literal);
    return { kind: "network", network: [address, address.kind() === "ipv4" ? 32 : 128], port, source };
  }
  const hostname = normalizeHostname(host);
  if (hostname === undefined) return undefined;
  // The URL parser turns loose numeric forms ("127.1") into an address: treat them as one.
  if (isIP(hostname) !== 0) return parseWebFetchAllowEntry(port === undefined ? hostname : `${hostname}:${port}`);
  return { kind: "host", hostname, port, source };
}

export function parseWebFetchAllowList(entries: readonly string[]): WebFetchAllowEntry[] {
  return entries.flatMap((entry) => parseWebFetchAllowEntry(entry) ?? []);
}

/**
 * Whether some entry allows the destination. A host entry matches the URL's host name (an admin
 * who names a host trusts whatever it resolves to); a network entry matches the address.
 */
export function isAllowListed(entries: readonly WebFetchAllowEntry[], destination: FetchDestination): boolean {
  const hostname = destination.hostname.toLowerCase().replace(/\.$/, "");
  const address = destination.address !== undefined ? parseAddress(destination.address) : undefined;
  return entries.some((entry) => {
    if (entry.port !== undefined && entry.port !== destination.port) return false;
    if (entry.kind === "host") return entry.hostname === hostname;
    if (address === undefined || address.kind() !== entry.network[0].kind()) return false;
    return address.match(entry.network);
  });
}

function splitPort(text: string): { host: string; port: number | undefined } | undefined {
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) return undefined;
    const rest = text.slice(close + 1);
    if (rest === "") return { host: text.slice(1, close), port: undefined };
    if (!rest.startsWith(":")) return undefined;
    const port = parsePort(rest.slice(1));
    return port === undefined ? undefined : { host: text.slice(1, close), port };
  }
  const colons = text.split(":").length - 1;
  // Two or more colons without brackets: a bare IPv6 address or range, which cannot carry a port.
  if (colons !== 1) return { host: text, port: undefined };
  const [host = "", portText = ""] = text.split(":");
  const port = parsePort(portText);
  return port === undefined || host === "" ? undefined : { host, port };
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function normalizeHostname(host: string): string | undefined {
  try {
    const hostname = new URL(`http://${host}/`).hostname.replace(/\.$/, "");
    return hostname === "" ? undefined : hostname.replace(/^\[|\]$/g, "");
  } catch {
    return undefined;
  }
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const parsed = parseIpAddress(address);
  return parsed === undefined ? undefined : normalizeAddress(parsed);
}

/** IPv4-mapped IPv6 addresses reach the IPv4 host, so they match (and are matched) as IPv4. */
function normalizeAddress(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

function mappedPrefix(address: ipaddr.IPv4 | ipaddr.IPv6, prefixLength: number): number {
  const isMapped = address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress();
  return isMapped ? Math.max(0, prefixLength - 96) : prefixLength;
}
