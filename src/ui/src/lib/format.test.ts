import { describe, expect, it } from "vitest";
import { duration, isoOf, relative, shortId, zonedClock, zonedTimestamp } from "./format";

describe("format", () => {
  it("durations read naturally", () => {
    expect([0, 850, 4200, 42_000, 60_000, 192_000, 3_600_000, 7_500_000, 3 * 86_400_000].map(duration)).toEqual([
      "0 ms",
      "850 ms",
      "4.2 s",
      "42 s",
      "1 m",
      "3 m 12 s",
      "1 h",
      "2 h 5 m",
      "3 d",
    ]);
    expect(duration(null)).toBe("—");
  });
  it("relative times", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(relative(new Date(now - 2000).toISOString(), now)).toBe("just now");
    expect(relative(new Date(now - 90_000).toISOString(), now)).toBe("2 m ago");
    expect(relative(new Date(now + 3 * 3_600_000).toISOString(), now)).toBe("in 3 h");
  });
  it("epoch ms as ISO text for the time helpers", () => {
    expect(isoOf(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05.000Z");
    expect(relative(isoOf(Date.UTC(2026, 0, 1) - 90_000), Date.UTC(2026, 0, 1))).toBe("2 m ago");
  });
  it("short ids keep the distinctive end of UUIDv7s", () => {
    expect(shortId("01a22994-c119-75ad-8aa9-64625538593d")).toBe("64625538593d");
    expect(shortId("order-42")).toBe("order-42");
  });

  it("a schedule's times are on its zone's clock, the zone named (UTC when none)", () => {
    const iso = `${new Date().getUTCFullYear()}-06-02T07:00:00.000Z`;
    expect(zonedTimestamp(iso, "Europe/Paris")).toMatch(/ 09:00:00 Europe\/Paris$/);
    expect(zonedTimestamp(iso, "")).toMatch(/ 07:00:00 UTC$/);
    expect(zonedClock(iso, "America/New_York")).toMatch(/ 03:00:00$/);
    expect(zonedTimestamp(null, "UTC")).toBe("—");
  });
});
