import { describe, expect, it } from "vitest";
import { isAllowListed, parseWebFetchAllowEntry, parseWebFetchAllowList } from "./web-fetch-allow-list.ts";

describe("web fetch allow-list", () => {
  it("matches an address entry with a port only on that port", () => {
    const list = parseWebFetchAllowList(["127.0.0.1:8080"]);
    expect(isAllowListed(list, { hostname: "127.0.0.1", port: 8080, address: "127.0.0.1" })).toBe(true);
    expect(isAllowListed(list, { hostname: "127.0.0.1", port: 8081, address: "127.0.0.1" })).toBe(false);
    expect(isAllowListed(list, { hostname: "127.0.0.2", port: 8080, address: "127.0.0.2" })).toBe(false);
  });

  it("matches a CIDR range on any port", () => {
    const list = parseWebFetchAllowList(["10.0.0.0/8"]);
    expect(isAllowListed(list, { hostname: "10.200.3.4", port: 443, address: "10.200.3.4" })).toBe(true);
    expect(isAllowListed(list, { hostname: "11.0.0.1", port: 443, address: "11.0.0.1" })).toBe(false);
  });

  it("matches a CIDR range with a port", () => {
    const list = parseWebFetchAllowList(["10.0.0.0/8:443", "[fd00::/8]:8443"]);
    expect(isAllowListed(list, { hostname: "x", port: 443, address: "10.1.1.1" })).toBe(true);
    expect(isAllowListed(list, { hostname: "x", port: 80, address: "10.1.1.1" })).toBe(false);
    expect(isAllowListed(list, { hostname: "x", port: 8443, address: "fd00::5" })).toBe(true);
    expect(isAllowListed(list, { hostname: "x", port: 8443, address: "fe80::5" })).toBe(false);
  });

  it("matches a host entry by name, whatever it resolves to", () => {
    const list = parseWebFetchAllowList(["localhost:3000", "Intranet.Example."]);
    expect(isAllowListed(list, { hostname: "localhost", port: 3000, address: "::1" })).toBe(true);
    expect(isAllowListed(list, { hostname: "localhost", port: 3001, address: "::1" })).toBe(false);
    expect(isAllowListed(list, { hostname: "intranet.example", port: 80, address: "10.0.0.5" })).toBe(true);
    expect(isAllowListed(list, { hostname: "evil.example", port: 80, address: "10.0.0.5" })).toBe(false);
  });

  it("treats IPv4-mapped IPv6 as the IPv4 address it reaches", () => {
    const list = parseWebFetchAllowList(["127.0.0.1"]);
    expect(isAllowListed(list, { hostname: "::ffff:7f00:1", port: 80, address: "::ffff:7f00:1" })).toBe(true);
  });

  it("accepts bare and bracketed IPv6 entries and normalizes loose IPv4 forms", () => {
    expect(parseWebFetchAllowEntry("::1")).toMatchObject({ kind: "network", port: undefined });
    expect(parseWebFetchAllowEntry("[::1]:8080")).toMatchObject({ kind: "network", port: 8080 });
    const loose = parseWebFetchAllowList(["127.1:9000"]);
    expect(isAllowListed(loose, { hostname: "127.0.0.1", port: 9000, address: "127.0.0.1" })).toBe(true);
  });

  it.each(["", "   ", "host:0", "host:99999", "host:abc", "[::1", "10.0.0.0/99", ":80"])("ignores the malformed entry %j", (entry) => {
    expect(parseWebFetchAllowEntry(entry)).toBeUndefined();
  });
});
