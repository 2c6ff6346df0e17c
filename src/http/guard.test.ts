import { describe, expect, it } from "vitest";
import { hostName, isLoopbackAddress } from "./guard.js";

describe("loopback checks", () => {
  it("recognises loopback peer addresses", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "0.0.0.0", "128.0.0.1", "1.127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(false);
  });
  it("takes the host name out of a Host header", () => {
    expect(hostName("LocalHost:7777")).toBe("localhost");
    expect(hostName("[::1]:7777")).toBe("[::1]");
    expect(hostName("127.0.0.1")).toBe("127.0.0.1");
    expect(hostName("evil.example:80")).toBe("evil.example");
  });
});
