import { describe, expect, it } from "vitest";
import { nonPublicAddressRange } from "./non-public-address-range.ts";

describe("nonPublicAddressRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["198.18.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["203.0.113.9", "reserved"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback"],
    ["::ffff:10.1.2.3", "IPv4-mapped private"],
    ["::7f00:1", "reserved (outside 2000::/3)"],
    ["::127.0.0.1", "reserved (outside 2000::/3)"],
    ["64:ff9b::7f00:1", "NAT64 loopback"],
    ["64:ff9b::a9fe:a9fe", "NAT64 link-local"],
    ["64:ff9b:1::1", "NAT64 local-use"],
    ["2002:7f00:1::", "6to4 loopback"],
    ["2002:c0a8:101::1", "6to4 private"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:db8::1", "reserved"],
    ["fec0::1", "site-local"],
    ["not-an-ip", "not a valid IP address"],
    ["127.1", "not a valid IP address"],
  ])("refuses %s (%s)", (address, expected) => {
    expect(nonPublicAddressRange(address)).toContain(expected);
  });

  it.each(["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])(
    "lets the public address %s through",
    (address) => {
      expect(nonPublicAddressRange(address)).toBeUndefined();
    },
  );
});
