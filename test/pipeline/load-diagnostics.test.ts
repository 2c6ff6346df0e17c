/**
 * Problems of a materialization found when the pipeline loads, not when a run fails, as the
 * binary shows them (`sluice pipeline graph`, `sluice dev`) with file and line: a custom
 * `// data_test <path>` with no file (a warning; the other scripts and tests are fine), and a
 * `// partitioned` managed materialization whose SELECT produces Sluice's `_partition` column
 * (an error: that script is not loaded), on DuckDB's parse of the SELECT: named with AS, or
 * brought along by a `*` over a table a `// partitioned` script of the pipeline writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice, startDev, stopDev, type SluiceProcess } from "../helpers/processes.js";

const FILES = {
  "f/t/checked.sql": `-- pipeline
-- materialize ducklake://main/checked
-- data_test f/tests/nope
-- data_test f/tests/ok
SELECT 1 AS id
`,
  "f/t/daily.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/daily
SELECT 1 AS id,
  '{partition}' AS _partition
`,
  "f/t/src.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/src
SELECT 1 AS id, 2.5 AS amount
`,
  "f/t/star.sql": `-- pipeline
-- on ducklake://main/src
-- partitioned daily
-- materialize ducklake://main/star
ATTACH 'ducklake://main' AS dl;
SELECT *
FROM dl.src WHERE _partition = '{partition}'
`,
  "f/tests/ok.sql": "SELECT * FROM slice WHERE id IS NULL\n",
};

const MISSING =
  "f/t/checked.sql:3: warning: `-- data_test f/tests/nope` names no file (f/tests/nope.sql does not exist), so every run fails its data tests; create f/tests/nope.sql with one SELECT returning the offending rows of the view `slice`, or fix the path [DATA_TEST_SCRIPT_NOT_FOUND]";
const reserved = (file: string, line: number) =>
  new RegExp(
    `${file.replace(/[/.]/g, "\\$&")}:${line}: error: the SELECT produces a column named _partition, which Sluice reserves for the partition of a -- partitioned materialization .*SELECT \\* EXCLUDE \\(_partition\\).*\\[PARTITION_COLUMN_RESERVED\\]`,
  );
const RESERVED = reserved("f/t/daily.sql", 4);
const STAR = reserved("f/t/star.sql", 6);

describe("materialization problems reported at load time", () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => {
    ({ root, dev } = await startDev(FILES));
  }, 60_000);
  afterAll(() => stopDev(dev));

  it("pipeline graph lists both with file and line and exits 1", async () => {
    const graph = await finished(spawnSluice(["pipeline", "graph", "f/t"], root));
    expect(graph.code).toBe(1);
    expect(graph.out).toContain(MISSING);
    expect(graph.out).toMatch(RESERVED);
    expect(graph.out).toMatch(STAR);
    expect(graph.out).not.toContain("f/tests/ok");
    expect(graph.out).toContain("pipeline f/t: 4 script(s) — 2 not loaded (errors below), the others run");
  });

  it("sluice dev prints them when it loads the pipeline", () => {
    expect(dev.output()).toContain(MISSING);
    expect(dev.output()).toMatch(RESERVED);
    expect(dev.output()).toMatch(STAR);
  });
});
