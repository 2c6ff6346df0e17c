import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { PartitionConfigError } from "./errors.js";
import { compileStrftime, STRFTIME_DIRECTIVES } from "./strftime.js";

const at = (iso: string, zone = "UTC"): DateTime => DateTime.fromISO(iso, { zone });

describe("compileStrftime: rendering via luxon tokens", () => {
  const dt = at("2026-01-05T03:04:05");
  it.each([
    ["%Y-%m-%d", "2026-01-05"],
    ["%Y-%m-%dT%H", "2026-01-05T03"],
    ["%Y-%m", "2026-01"],
    ["%Y/%m/%d", "2026/01/05"],
    ["%y", "26"],
    ["%b %B %h", "Jan January Jan"],
    ["%e", " 5"],
    ["%j", "005"],
    ["%I%p", "03AM"],
    ["%M:%S", "04:05"],
    ["%u %w %a %A", "1 1 Mon Monday"],
    ["%F", "2026-01-05"],
    ["%D", "01/05/26"],
    ["%T", "03:04:05"],
    ["%R", "03:04"],
    ["%z %Z", "+0000 UTC"],
    ["100%%", "100%"],
    ["day-%d!", "day-05!"],
  ])("%s → %s", (pattern, expected) => {
    expect(compileStrftime(pattern).render(dt)).toBe(expected);
  });

  it("renders ISO week-year and week (%G-W%V) across a year boundary", () => {
    expect(compileStrftime("%G-W%V").render(at("2026-05-16"))).toBe("2026-W20");
    expect(compileStrftime("%G-W%V").render(at("2025-12-29"))).toBe("2026-W01");
    expect(compileStrftime("%Y-W%V").render(at("2025-12-29"))).toBe("2025-W01");
    expect(compileStrftime("%g").render(at("2027-01-01"))).toBe("26");
  });

  it("renders %w Sunday as 0 and %u Sunday as 7", () => {
    const sunday = at("2026-05-17");
    expect(compileStrftime("%w %u").render(sunday)).toBe("0 7");
  });

  it("uses the DateTime's zone", () => {
    expect(compileStrftime("%Y-%m-%d %H %Z").render(at("2026-05-16T00:30:00Z").setZone("America/New_York"))).toBe(
      "2026-05-15 20 EDT",
    );
  });
});

describe("compileStrftime: validation and parsing", () => {
  it.each(["%Q", "abc%", "%Y-%k"])("rejects %j with PARTITION_FORMAT_INVALID", (pattern) => {
    expect(() => compileStrftime(pattern)).toThrow(PartitionConfigError);
    try {
      compileStrftime(pattern);
    } catch (e) {
      expect((e as PartitionConfigError).code).toBe("PARTITION_FORMAT_INVALID");
      expect((e as Error).message).toContain("%Y");
    }
  });

  it("rejects an empty pattern", () => {
    expect(() => compileStrftime("")).toThrow(/empty/);
  });

  it("lists the supported directives", () => {
    expect(STRFTIME_DIRECTIVES).toContain("%G");
    expect(STRFTIME_DIRECTIVES).toContain("%%");
  });

  it("reports the fields a pattern carries", () => {
    expect([...compileStrftime("%Y/%m/%d").fields].sort()).toEqual(["day", "month", "year"]);
    expect([...compileStrftime("%G-W%V").fields].sort()).toEqual(["isoWeek", "isoYear"]);
  });

  it("parses values back strictly, in a zone", () => {
    const f = compileStrftime("%Y/%m/%d");
    expect(f.parse("2026/05/16", "America/New_York")?.toISO()).toBe("2026-05-16T00:00:00.000-04:00");
    expect(f.parse("2026/5/16", "UTC")).toBeUndefined();
    expect(f.parse("2026/02/30", "UTC")).toBeUndefined();
    expect(compileStrftime("%G-W%V").parse("2026-W01", "UTC")?.toISODate()).toBe("2025-12-29");
    expect(compileStrftime("%Y-%m-%dT%H").parse("2026-05-16T09", "UTC")?.hour).toBe(9);
    expect(compileStrftime("%b-%Y").parse("May-2026", "UTC")?.month).toBe(5);
  });

  it("is not parseable with %e, %w, %z, %Z or a quote literal", () => {
    for (const p of ["%e", "%w", "%z", "%Z", "%Y'%m"]) {
      const f = compileStrftime(p);
      expect(f.parseable).toBe(false);
      expect(f.parse("x", "UTC")).toBeUndefined();
    }
  });
});
