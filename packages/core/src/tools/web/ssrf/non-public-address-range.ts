import ipaddr from "ipaddr.js";
import { parseIpAddress } from "./parse-ip-address.ts";

/**
 * The name of the special-purpose range `address` falls into, or `undefined` when it is an
 * ordinary public unicast address that fetch_page may reach without an allow-list entry.
 *
 * Deny by default: IPv4 must be in ipaddr.js's `unicast` range (everything it does not list as
 * loopback, private, link-local, CGNAT, multicast, broadcast, reserved, documentation,
 * benchmarking...), IPv6 must be in 2000::/3 (global unicast) and in no special range. IPv6
 * forms that carry an IPv4 address a router or the kernel will reach (IPv4-mapped, NAT64's
 * 64:ff9b::/96, 6to4) are judged by that embedded address; Teredo's is obfuscated, so it is refused.
 *
 * `address` must already be a canonical literal (a resolver's answer, or a WHATWG-normalized URL
 * host with its brackets removed): anything `net.isIP` rejects is refused, so loose forms such as
 * `127.1` can never be misread here.
 */
export function nonPublicAddressRange(address: string): string | undefined {
  const parsed = parseIpAddress(address);
  if (parsed === undefined) return "not a valid IP address";
  if (parsed.kind() === "ipv4") {
    const range = (parsed as ipaddr.IPv4).range();
    return range === "unicast" ? undefined : rangeLabel(range);
  }
  return nonPublicIpv6Range(parsed as ipaddr.IPv6);
}

function nonPublicIpv6Range(address: ipaddr.IPv6): string | undefined {
  if (address.isIPv4MappedAddress()) {
    return embedded("IPv4-mapped", address.toIPv4Address());
  }
  const range = address.range();
  if (range === "rfc6052") {
    // Only the well-known prefix 64:ff9b::/96 maps to the embedded IPv4 address; the local-use
    // prefix 64:ff9b:1::/48 is an operator's private translator.
    if (address.match(ipaddr.IPv6.parse("64:ff9b::"), 96)) {
      return embedded("NAT64", ipv4FromParts(address.parts[6] ?? 0, address.parts[7] ?? 0));
    }
    return "NAT64 local-use (64:ff9b:1::/48)";
  }
  if (range === "6to4") {
    return embedded("6to4", ipv4FromParts(address.parts[1] ?? 0, address.parts[2] ?? 0));
  }
  if (range === "teredo") return "Teredo (2001::/32)";
  if (range !== "unicast") return rangeLabel(range);
  // Everything outside 2000::/3 is unallocated or special (IPv4-compatible ::/96, ::/8, ...).
  if (!address.match(ipaddr.IPv6.parse("2000::"), 3)) return "reserved (outside 2000::/3)";
  return undefined;
}

function embedded(form: string, ipv4: ipaddr.IPv4): string | undefined {
  const range = ipv4.range();
  if (range === "unicast") return undefined;
  return `${form} ${rangeLabel(range)} (${ipv4.toString()})`;
}

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const RANGE_LABELS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (100.64.0.0/10)",
  private: "private",
  reserved: "reserved",
  uniqueLocal: "unique local (fc00::/7)",
  rfc6145: "IPv4-translated (::ffff:0:0:0/96)",
  benchmarking: "benchmarking",
  deprecatedSiteLocal: "site-local",
};

function rangeLabel(range: string): string {
  return RANGE_LABELS[range] ?? `special-purpose (${range})`;
}
