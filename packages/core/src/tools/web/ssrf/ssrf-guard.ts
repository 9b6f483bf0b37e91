import { promises as dns, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { DestinationNotAllowedError } from "./destination-not-allowed-error.ts";
import { nonPublicAddressRange } from "./non-public-address-range.ts";
import { isAllowListed, type WebFetchAllowEntry } from "./web-fetch-allow-list.ts";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests can simulate hostile DNS. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemHostResolver: HostResolver = async (hostname) => {
  const addresses = await dns.lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** The `lookup` function Node's `net.connect` (and so http/https requests) accepts. */
export type ConnectLookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export const ALLOWED_PROTOCOLS = ["http:", "https:"] as const;

export function defaultPort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** The URL's host without the brackets the WHATWG parser keeps around IPv6 literals. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * Checks what can be judged from the URL alone: the scheme, embedded credentials, and a host that
 * is an IP literal (Node connects to literals without calling `lookup`, so they are judged here).
 * The WHATWG parser has already normalized numeric hosts (`127.1`, `2130706433`, `0x7f000001`,
 * `0177.0.0.1`) to dotted quads and IPv6 to its canonical form, and has separated userinfo
 * (`http://evil@127.0.0.1`) from the host. Throws DestinationNotAllowedError.
 */
export function checkUrlBeforeConnect(url: URL, allowList: readonly WebFetchAllowEntry[]): void {
  const shown = url.href;
  if (!(ALLOWED_PROTOCOLS as readonly string[]).includes(url.protocol)) {
    throw new DestinationNotAllowedError(`only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}.`, {
      url: shown,
      reason: "scheme",
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new DestinationNotAllowedError("URLs with embedded credentials (user@host) are not fetched.", {
      url: shown,
      reason: "credentials",
    });
  }
  const hostname = bareHostname(url);
  if (isIP(hostname) !== 0) {
    checkAddress(url, hostname, hostname, allowList);
  }
}

/**
 * A `lookup` for the request's connection: it resolves the host and checks EVERY address at
 * connect time, so the addresses judged are exactly the ones connected to (DNS rebinding between
 * a check and the connection cannot slip through). One non-public address refuses the whole
 * host: otherwise an attacker's record set could steer the connection's fallback to it.
 */
export function createGuardedLookup(options: {
  url: URL;
  allowList: readonly WebFetchAllowEntry[];
  resolve: HostResolver;
  /** Called with every address that passed the guard, before the socket connects to it. */
  onAddressesAllowed?: (addresses: ResolvedAddress[]) => void;
}): ConnectLookup {
  return (hostname, lookupOptions, callback) => {
    options
      .resolve(hostname)
      .then((resolved) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const addresses = family === undefined ? resolved : resolved.filter((entry) => entry.family === family);
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
          error.code = "ENOTFOUND";
          throw error;
        }
        for (const entry of addresses) checkAddress(options.url, hostname, entry.address, options.allowList);
        options.onAddressesAllowed?.(addresses);
        if (lookupOptions.all === true) {
          callback(
            null,
            addresses.map((entry) => ({ address: entry.address, family: entry.family })),
          );
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ""));
  };
}

function checkAddress(url: URL, hostname: string, address: string, allowList: readonly WebFetchAllowEntry[]): void {
  const range = nonPublicAddressRange(address);
  if (range === undefined) return;
  if (isAllowListed(allowList, { hostname, port: defaultPort(url), address })) return;
  throw DestinationNotAllowedError.forAddress(url.href, hostname, address, range);
}
