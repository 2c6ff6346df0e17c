import { describe, expect, it } from "vitest";
import { checkSameOrigin, hostName, isLoopbackAddress } from "./guard.js";

describe("loopback checks", () => {
  it("recognises loopback peer addresses", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "0.0.0.0", "128.0.0.1", "1.127.0.0.1"])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
  it("takes the host name out of a Host header", () => {
    expect(hostName("LocalHost:7777")).toBe("localhost");
    expect(hostName("[::1]:7777")).toBe("[::1]");
    expect(hostName("127.0.0.1")).toBe("127.0.0.1");
    expect(hostName("evil.example:80")).toBe("evil.example");
  });
});

describe("checkSameOrigin", () => {
  it("trusts Sec-Fetch-Site first, then Origin; programs without either pass", () => {
    expect(() => checkSameOrigin("same-origin", "null", "localhost:7777")).not.toThrow();
    expect(() => checkSameOrigin("none", undefined, "localhost:7777")).not.toThrow();
    expect(() => checkSameOrigin("cross-site", "https://evil.example", "localhost:7777")).toThrow(/cross-origin/);
    expect(() => checkSameOrigin("same-site", "http://a.localhost:7777", "localhost:7777")).toThrow(/cross-origin/);
    expect(() => checkSameOrigin(undefined, "http://localhost:7777", "localhost:7777")).not.toThrow();
    expect(() => checkSameOrigin(undefined, "http://evil.example", "localhost:7777")).toThrow(/cross-origin/);
    expect(() => checkSameOrigin(undefined, "null", "localhost:7777")).toThrow(/cross-origin/);
    expect(() => checkSameOrigin(undefined, undefined, "localhost:7777")).not.toThrow();
  });
});
