import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { DestinationNotAllowedError } from "./destination-not-allowed-error.ts";
import { checkUrlBeforeConnect, createGuardedLookup, type ResolvedAddress } from "./ssrf-guard.ts";
import { parseWebFetchAllowList } from "./web-fetch-allow-list.ts";

function lookupResult(
  url: string,
  answer: ResolvedAddress[],
  allow: string[] = [],
  all = true,
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }> {
  const lookup = createGuardedLookup({ url: new URL(url), allowList: parseWebFetchAllowList(allow), resolve: async () => answer });
  return new Promise((resolve) => lookup(new URL(url).hostname, { all }, (error, address) => resolve({ error, address })));
}

describe("createGuardedLookup", () => {
  it("refuses the host when any one of its addresses is private, even next to a public one", async () => {
    const { error } = await lookupResult("http://mixed.test/", [
      { address: "93.184.215.14", family: 4 },
      { address: "10.1.2.3", family: 4 },
    ]);
    expect(error).toBeInstanceOf(DestinationNotAllowedError);
    expect(error?.message).toContain("mixed.test (10.1.2.3) is a private address");
  });

  it("refuses a name that resolves to the metadata address", async () => {
    const { error } = await lookupResult("http://metadata.test/", [{ address: "169.254.169.254", family: 4 }]);
    expect(error?.message).toContain("link-local");
  });

  it("refuses an IPv6 answer that embeds a loopback IPv4 address", async () => {
    const { error } = await lookupResult("http://v6.test/", [{ address: "::ffff:127.0.0.1", family: 6 }]);
    expect(error?.message).toContain("IPv4-mapped loopback");
  });

  it("passes public answers on in the shape Node asked for", async () => {
    const answer: ResolvedAddress[] = [
      { address: "93.184.215.14", family: 4 },
      { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
    ];
    expect((await lookupResult("http://public.test/", answer)).address).toEqual(answer);
    expect((await lookupResult("http://public.test/", answer, [], false)).address).toBe("93.184.215.14");
  });

  it("lets an allow-listed private answer through, on the listed port only", async () => {
    const answer: ResolvedAddress[] = [{ address: "10.0.0.7", family: 4 }];
    expect((await lookupResult("http://intranet.test:8080/", answer, ["10.0.0.0/8:8080"])).error).toBeNull();
    expect((await lookupResult("http://intranet.test:9090/", answer, ["10.0.0.0/8:8080"])).error).toBeInstanceOf(DestinationNotAllowedError);
  });

  it("answers ENOTFOUND for a name without addresses", async () => {
    expect((await lookupResult("http://empty.test/", [])).error?.code).toBe("ENOTFOUND");
  });
});

describe("checkUrlBeforeConnect", () => {
  it.each([
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "file:///etc/passwd",
    "ftp://example.com/",
    "http://user@example.com/",
  ])("refuses %s", (url) => {
    expect(() => checkUrlBeforeConnect(new URL(url), [])).toThrow(DestinationNotAllowedError);
  });

  it("leaves host names to the connect-time lookup and lets public literals through", () => {
    expect(() => checkUrlBeforeConnect(new URL("https://example.com/"), [])).not.toThrow();
    expect(() => checkUrlBeforeConnect(new URL("http://93.184.215.14/"), [])).not.toThrow();
  });
});
