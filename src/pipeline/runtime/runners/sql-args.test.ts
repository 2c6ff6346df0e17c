import { describe, expect, it } from "vitest";
import { coerceSqlArgument, parseSqlArguments } from "./sql-args.js";
import { replaceLiterals, sqlLiterals } from "./sql-text.js";
import { substituteSqlPartition } from "./sql.js";
import { bashArguments } from "./subprocess.js";

describe("DuckDB script arguments", () => {
  it("parses -- $name (type) [= default] declarations", () => {
    const args = parseSqlArguments(
      "-- pipeline\n-- $cutoff (date)\n-- $limit (int) = 10\n--$name (text) = 'ana'\n-- $tags (text[])\nSELECT 1;",
    );
    expect(args).toEqual([
      { name: "cutoff", type: "date", line: 2 },
      { name: "limit", type: "int", defaultText: "10", line: 3 },
      { name: "name", type: "text", defaultText: "'ana'", line: 4 },
      { name: "tags", type: "text[]", line: 5 },
    ]);
  });

  it("coerces values to the declared type, with clear errors", () => {
    const [cutoff, limit, name, tags] = parseSqlArguments(
      "-- $cutoff (date)\n-- $limit (int) = 10\n-- $name (text) = 'ana'\n-- $tags (text[])",
    );
    expect(coerceSqlArgument(limit!, undefined)).toBe(10);
    expect(coerceSqlArgument(limit!, "12")).toBe(12);
    expect(coerceSqlArgument(name!, undefined)).toBe("ana");
    expect(coerceSqlArgument(cutoff!, undefined)).toBeNull();
    expect(coerceSqlArgument(tags!, ["a"])).toBe('["a"]');
    expect(() => coerceSqlArgument(limit!, 1.5)).toThrow(/\$limit \(int, line 2\) must be a whole number, got 1.5/);
    expect(coerceSqlArgument({ name: "f", type: "s3object", line: 1 }, { s3: "s3:///demo/x.parquet" })).toBe(
      "demo/x.parquet",
    );
  });

  it("checks dates, times and timestamps as DuckDB reads them, before DuckDB sees them", () => {
    const [day, at, clock, tz] = parseSqlArguments(
      "-- $day (date)\n-- $at (timestamp)\n-- $clock (time)\n-- $tz (timestamptz)",
    );
    expect(coerceSqlArgument(day!, "2026-05-16")).toBe("2026-05-16");
    expect(coerceSqlArgument(at!, "2026-12-03T16:07:30Z")).toBe("2026-12-03T16:07:30Z");
    expect(coerceSqlArgument(at!, "2026-12-03 16:07:30.123456")).toBe("2026-12-03 16:07:30.123456");
    expect(coerceSqlArgument(at!, "2026-12-03")).toBe("2026-12-03");
    expect(coerceSqlArgument(tz!, "2026-12-03 16:07:30+01:00")).toBe("2026-12-03 16:07:30+01:00");
    expect(coerceSqlArgument(tz!, "2026-12-03 16:07:30 UTC")).toBe("2026-12-03 16:07:30 UTC");
    // a named zone other than UTC needs DuckDB's ICU extension, which is not installed here
    expect(() => coerceSqlArgument(tz!, "2026-12-03 16:07 Europe/Paris")).toThrow(/a zone as Z, \+01:00 or UTC/);
    expect(coerceSqlArgument(clock!, "09:30")).toBe("09:30");
    expect(() => coerceSqlArgument(at!, "yesterday")).toThrow(
      /\$at \(timestamp, line 2\) must be a date and time such as 2026-05-16 09:30:00 \(ISO.*, got "yesterday"/,
    );
    expect(() => coerceSqlArgument(day!, "2026-02-30")).toThrow(/must be a date such as 2026-05-16/);
    expect(() => coerceSqlArgument(day!, 20260516)).toThrow(/must be a date/);
    expect(() => coerceSqlArgument(clock!, "9.30")).toThrow(/must be a time such as 09:30:00/);
  });
});

describe("SQL text", () => {
  it("finds string literals, skipping comments and identifiers", () => {
    const sql = `-- 'not this'\nSELECT 'it''s', "col'x" FROM read_json('s3://a/b.json') /* 'nor this' */`;
    expect(sqlLiterals(sql).map((l) => l.value)).toEqual(["it's", "s3://a/b.json"]);
    expect(replaceLiterals(sql, (l) => (l.value.startsWith("s3://") ? "'/tmp/b.json'" : undefined))).toContain(
      "read_json('/tmp/b.json')",
    );
  });

  it("substitutes {partition} only with a safe value", () => {
    expect(substituteSqlPartition("WHERE d = '{partition}'", "2026-05-16", "x.sql")).toBe("WHERE d = '2026-05-16'");
    expect(() => substituteSqlPartition("'{partition}'", undefined, "x.sql")).toThrow(
      /uses \{partition\} but this run has no partition/,
    );
    expect(() => substituteSqlPartition("'{partition}'", "a;b", "x.sql")).toThrow(/declare -- \$partition/);
    expect(substituteSqlPartition("SELECT 1", undefined, "x.sql")).toBe("SELECT 1");
  });
});

describe("Bash arguments", () => {
  it('reads name="$N" declarations by position', () => {
    expect(bashArguments('partition="$1"\nlimit="$2"\necho hi')).toEqual(["partition", "limit"]);
    expect(bashArguments('b="${2}"\na=$1')).toEqual(["a", "b"]);
    expect(bashArguments("echo no args")).toEqual([]);
  });
});
