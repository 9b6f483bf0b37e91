import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Parses a literal IP address (brackets and IPv6 zone allowed), or `undefined` when `text` is not
 * one by Node's strict rules (so loose IPv4 forms such as `127.1` are not addresses here).
 * IPv6 goes through the WHATWG URL serializer first: ipaddr.js reads the dotted tail of `::1.2.3.4`
 * (IPv4-compatible) as if it were `::ffff:1.2.3.4` (IPv4-mapped), the URL parser does not.
 */
export function parseIpAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const version = isIP(bare);
  if (version === 4) return ipaddr.IPv4.parse(bare);
  if (version === 6) return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  return undefined;
}
