import { describe, expect, it } from "vitest";
import { plainArguments, plainParams, plainWarnings } from "./plain-definition.js";

describe("plainParams", () => {
  it("names a DuckDB script's `-- $name (type)` arguments; those without a default are required", () => {
    const source = "-- $n (integer)\n-- $label (text) = 'x'\n-- $since (date)\nSELECT $n, $label, $since\n";
    expect(plainParams({ language: "sql", source })).toEqual({
      names: ["n", "label", "since"],
      required: ["n", "since"],
    });
  });

  it("gives a DuckDB script without declarations no parameters", () => {
    expect(plainParams({ language: "sql", source: "SELECT 1" })).toEqual({ names: [], required: [] });
  });

  it('names a Bash script\'s `name="$N"` positional arguments, none of them required', () => {
    const source = 'name="$1"\ncount=$2\necho "$name $count"\n';
    expect(plainParams({ language: "bash", source })).toEqual({ names: ["name", "count"], required: [] });
  });

  it("leaves out a Bash position nothing names", () => {
    expect(plainParams({ language: "bash", source: 'second="$2"\n' })).toEqual({ names: ["second"], required: [] });
  });
});

describe("plainArguments", () => {
  const sql = { names: ["n", "label"], required: ["n"] };

  it("passes an object as named arguments and no payload as none", () => {
    expect(plainArguments({ language: "sql" }, sql, { n: 1 })).toEqual({ n: 1 });
    expect(plainArguments({ language: "sql" }, sql, null)).toEqual({});
    expect(plainArguments({ language: "sql" }, sql, undefined)).toEqual({});
  });

  it("names a positional list by the DuckDB parameters, and keeps it positional for Bash", () => {
    expect(plainArguments({ language: "sql" }, sql, [3, "x"])).toEqual({ n: 3, label: "x" });
    expect(plainArguments({ language: "sql" }, sql, [3])).toEqual({ n: 3 });
    expect(plainArguments({ language: "bash" }, { names: ["a"], required: [] }, ["p", "q"])).toEqual(["p", "q"]);
  });

  it("takes any other value as the first parameter's", () => {
    expect(plainArguments({ language: "sql" }, sql, 7)).toEqual({ n: 7 });
    expect(plainArguments({ language: "bash" }, { names: ["who"], required: [] }, "ann")).toEqual({ who: "ann" });
    expect(plainArguments({ language: "sql" }, { names: [], required: [] }, 7)).toEqual({});
  });
});

describe("plainWarnings", () => {
  const script = (source: string) => ({
    path: "f/x/q.sql",
    name: "f/x/q",
    folder: "f/x",
    language: "sql" as const,
    source,
  });

  it("says that pipeline annotations take no effect without `-- pipeline`", () => {
    expect(plainWarnings(script("-- on s3://b/raw.csv\nSELECT 1"))).toEqual([
      expect.stringMatching(
        /^f\/x\/q\.sql:1: warning: this script has pipeline annotations but no .*\[NOT_A_PIPELINE_MEMBER\]$/,
      ),
    ]);
    expect(plainWarnings(script("-- materialize ducklake://main/t\nSELECT 1 AS n"))).toEqual([
      "f/x/q.sql:1: warning: `-- materialize` takes effect only in a pipeline script: this plain script runs its SQL as it is and writes no table; add a `-- pipeline` line [NOT_A_PIPELINE_MEMBER]",
    ]);
  });

  it("has nothing to say about a plain script without annotations", () => {
    expect(plainWarnings(script("-- $n (integer)\nSELECT $n"))).toEqual([]);
  });
});
