/**
 * How DuckDB values come out, by one rule (`src/assets/duckdb-json.ts`) wherever Sluice hands
 * them out, as the real binaries give them: a SQL script's run result, a data-table query in
 * TypeScript, and a lake table's preview served by `sluice dev`. A DATE is the calendar date
 * `YYYY-MM-DD` (also inside lists and structs), a TIME `HH:MM:SS[.ffffff]` as DuckDB prints it
 * (it came out as a number of microseconds), a TIMESTAMP ISO 8601 in UTC with its microseconds
 * (run results cut them to milliseconds, lake previews printed DuckDB's `2026-01-05 10:30:00`),
 * a NULL null. A DECIMAL handed to code (run result, data-table query) is a number when a JSON
 * number holds it exactly and its exact digits beyond (a 16-digit sum); a preview shows its exact
 * digits as DuckDB prints them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const VALUES = `SELECT DATE '2026-01-05' AS d,
  TIMESTAMP '2026-01-05 10:30:00' AS ts,
  TIMESTAMP '2026-01-05 10:30:00.123456' AS ts_us,
  TIME '10:11:12.5' AS t,
  TIME '01:02:03' AS t0,
  10.50::DECIMAL(10, 2) AS amount,
  1234567890123456.78::DECIMAL(38, 2) AS big,
  CAST(NULL AS DATE) AS none`;
const ROW = {
  d: "2026-01-05",
  ts: "2026-01-05T10:30:00.000000Z",
  ts_us: "2026-01-05T10:30:00.123456Z",
  t: "10:11:12.5",
  t0: "01:02:03",
  amount: 10.5,
  big: "1234567890123456.78",
  none: null,
};
/** As a preview shows it: a DECIMAL's exact digits. */
const SHOWN = { ...ROW, amount: "10.50" };

const FILES = {
  "f/sql/values.sql": `-- pipeline
${VALUES},
  [DATE '2026-01-06', DATE '1969-12-31'] AS days,
  [TIME '23:59:59.999999'] AS times,
  {'at': DATE '2026-02-01', 'when': TIMESTAMP '1969-12-31 23:59:59.5'} AS s
`,
  "f/ts/query.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
  return await wmill.datatable()\`${VALUES}\`.fetchOne();
}
`,
  "f/lake/vals.sql": `-- pipeline
-- materialize ducklake://main/vals
${VALUES}
`,
};

describe("DuckDB values in run results and previews", () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  const result = async (folder: string) => {
    const r = await finished(spawnSluice(["pipeline", "run", folder, "--json"], root));
    expect(r.code, r.err).toBe(0);
    return (JSON.parse(r.out) as { steps: { result: unknown }[] }).steps[0]!.result;
  };
  beforeAll(async () => {
    root = makeProject(FILES);
    // shared: it serves every test of the file (unshared processes are killed after each test)
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {}, { shared: true });
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  }, 60_000);
  afterAll(async () => {
    dev?.proc.kill("SIGTERM");
    await dev?.exited;
  });

  it("a SQL script's result: DATE YYYY-MM-DD, TIME as DuckDB prints it, TIMESTAMP ISO with microseconds", async () => {
    expect(await result("f/sql")).toEqual([
      {
        ...ROW,
        days: ["2026-01-06", "1969-12-31"],
        times: ["23:59:59.999999"],
        s: { at: "2026-02-01", when: "1969-12-31T23:59:59.500000Z" },
      },
    ]);
  });

  it("a data-table query's values follow the same rule", async () => {
    expect(await result("f/ts")).toEqual(ROW);
  });

  it("a lake table's preview follows the same rule, a DECIMAL shown with its exact digits", async () => {
    await result("f/lake");
    const res = await fetch(`${url}/api/lake/table/preview?uri=ducklake://main/vals`);
    const preview = (await res.json()) as { rows: unknown[] };
    expect(res.status, JSON.stringify(preview)).toBe(200);
    expect(preview.rows).toEqual([SHOWN]);
  });
});
