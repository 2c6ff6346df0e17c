/**
 * How DuckDB values come out of a run, as the binary prints its result: a DATE is the
 * calendar date `YYYY-MM-DD` (also inside lists and structs, and from a data-table query in
 * TypeScript), a TIMESTAMP an ISO timestamp, a NULL date null.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "f/sql/values.sql": `-- pipeline
SELECT DATE '2026-01-05' AS d,
  TIMESTAMP '2026-01-05 10:30:00' AS ts,
  CAST(NULL AS DATE) AS none,
  [DATE '2026-01-06', DATE '1969-12-31'] AS days,
  {'at': DATE '2026-02-01'} AS s
`,
  "f/ts/query.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
  return await wmill.datatable()\`SELECT DATE '2026-01-05' AS d, TIMESTAMP '2026-01-05 10:30:00' AS ts\`.fetchOne();
}
`,
};

describe("DuckDB values in run results", () => {
  let root: string;
  const result = async (folder: string) => {
    const r = await finished(spawnSluice(["pipeline", "run", folder, "--json"], root));
    expect(r.code, r.err).toBe(0);
    return (JSON.parse(r.out) as { steps: { result: unknown }[] }).steps[0]!.result;
  };
  beforeAll(() => {
    root = makeProject(FILES);
  });

  it("a SQL script's DATE is YYYY-MM-DD, its TIMESTAMP an ISO timestamp", async () => {
    expect(await result("f/sql")).toEqual([
      {
        d: "2026-01-05",
        ts: "2026-01-05T10:30:00.000Z",
        none: null,
        days: ["2026-01-06", "1969-12-31"],
        s: { at: "2026-02-01" },
      },
    ]);
  });

  it("a data-table query's DATE is YYYY-MM-DD too", async () => {
    expect(await result("f/ts")).toEqual({ d: "2026-01-05", ts: "2026-01-05T10:30:00.000Z" });
  });
});
