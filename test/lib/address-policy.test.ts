import { describe, expect, test } from "bun:test";
import { classifyAddress, isIpLiteral } from "../../src/lib/address-policy";

describe("classifyAddress refuses every non-public form", () => {
  const refused: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "cloudMetadata"],
    ["169.254.1.1", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.100.100.200", "cloudMetadata"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["fd00:ec2::254", "cloudMetadata"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "ipv4Mapped:loopback"],
    ["::ffff:7f00:1", "ipv4Mapped:loopback"],
    ["::ffff:10.0.0.1", "ipv4Mapped:private"],
    ["::ffff:169.254.169.254", "ipv4Mapped:cloudMetadata"],
    ["[::ffff:192.168.0.1]", "ipv4Mapped:private"],
    ["64:ff9b::a00:1", "rfc6052:private"],
    ["2002:7f00:1::1", "6to4:loopback"],
    ["::7f00:1", "ipv4Compatible"],
    ["2001:db8::1", "reserved"],
    ["2001::1", "teredo"],
    ["not-an-ip", "invalid"],
  ];
  test.each(refused)("%s → refused (%s)", (address, range) => {
    const v = classifyAddress(address);
    expect(v.allowed).toBe(false);
    expect(v.range).toBe(range);
  });
});

describe("classifyAddress allows public unicast", () => {
  test.each(["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "%s → allowed",
    (address) => {
      expect(classifyAddress(address).allowed).toBe(true);
    },
  );
});

test("isIpLiteral knows URL hostnames that are addresses", () => {
  expect(isIpLiteral("127.0.0.1")).toBe(true);
  expect(isIpLiteral("[::1]")).toBe(true);
  expect(isIpLiteral("example.com")).toBe(false);
});
