import { describe, expect, it } from "vitest";
import { knownOutputNames } from "./select-outputs.js";
import { reservedColumnProblem } from "./partition-column.js";

describe("output names known from a SELECT's text", () => {
  it("names aliased items and plain column references of the top-level select list", () => {
    expect(
      knownOutputNames(
        `SELECT DISTINCT o.id, amount * 2 AS "double, amount", sum(x) AS total, 'a,b' AS s, t."Weird ""q""", f(a, b), a - b, * FROM t WHERE x = 1`,
      ),
    ).toEqual(["id", "double, amount", "total", "s", 'Weird "q"']);
  });

  it("takes the main SELECT after CTEs, the first of a set operation, and stops at the list's end", () => {
    expect(
      knownOutputNames(
        "WITH c AS (SELECT 1 AS inner_col) SELECT a AS first FROM c UNION ALL SELECT b AS second FROM d",
      ),
    ).toEqual(["first"]);
    expect(knownOutputNames("SELECT (SELECT 1 AS n) AS sub, CASE WHEN a THEN 1 END FROM t ORDER BY 1")).toEqual([
      "sub",
    ]);
    expect(knownOutputNames("SELECT DISTINCT ON (a) a, b FROM t")).toEqual(["a", "b"]);
  });

  it("knows nothing of a SELECT without a select list of its own", () => {
    expect(knownOutputNames("FROM t")).toEqual([]);
    expect(knownOutputNames("VALUES (1, 2)")).toEqual([]);
  });
});

describe("the reserved partition column", () => {
  it("is a problem on the trailing SELECT's line when it produces _partition", () => {
    const src =
      "-- pipeline\n-- partitioned daily\nATTACH 'ducklake://main' AS dl;\nSELECT id,\n  day AS _partition FROM dl.t\n";
    expect(reservedColumnProblem(src)).toMatchObject({ line: 4 });
    expect(reservedColumnProblem(src)!.message).toMatch(/column named _partition, which Sluice reserves/);
    expect(reservedColumnProblem("SELECT t._PARTITION FROM t")).toMatchObject({ line: 1 });
    expect(reservedColumnProblem("SELECT id, '_partition' AS label, f(_partition) FROM t")).toBeUndefined();
    expect(reservedColumnProblem("SELECT * FROM t")).toBeUndefined();
  });
});
