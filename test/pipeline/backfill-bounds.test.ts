/**
 * Backfill and run bounds must be partitions of the steps' scheme, as users type them: the
 * binary refuses ISO weeks on a daily scheme with one line naming the expected format and
 * starts nothing, and a run's step refuses such a `--partition` the same way; a weekly scheme takes them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "f/daily/extract.ts": `// pipeline
// partitioned daily
export async function main(partition: string) { return partition; }
`,
  "f/weekly/rollup.ts": `// pipeline
// partitioned weekly
export async function main(partition: string) { return partition; }
`,
};

describe("partition bounds of another scheme", () => {
  let root: string;
  const sluice = (...args: string[]) => finished(spawnSluice(args, root));
  beforeAll(() => {
    root = makeProject(FILES);
  });

  it("a daily backfill refuses ISO-week bounds, naming YYYY-MM-DD, and starts nothing", async () => {
    const r = await sluice(
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-W01",
      "--to-partition",
      "2026-W03",
    );
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'sluice: "2026-W01" is not a daily partition: write it as YYYY-MM-DD (format "%Y-%m-%d"), e.g. "2026-05-16"\n',
    );
    const runs = await sluice("runs", "--json");
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.out)).toEqual([]);
    // a run's step refuses it the same way (the rule is one function), before the script runs
    const run = await sluice("pipeline", "run", "f/daily", "--partition", "2026-W02");
    expect(run.code).toBe(1);
    expect(run.out).toContain("✗ failed  f/daily/extract.ts  (");
    expect(run.out).toContain('"2026-W02" is not a daily partition: write it as YYYY-MM-DD (format "%Y-%m-%d")');
  });

  it("a weekly backfill takes them, and a daily one its own days", async () => {
    const weekly = await sluice(
      "pipeline",
      "backfill",
      "f/weekly",
      "--from-partition",
      "2026-W01",
      "--to-partition",
      "2026-W03",
      "--dry-run",
    );
    expect(weekly.code).toBe(0);
    expect(weekly.out).toContain("partitions: 2026-W01, 2026-W02, 2026-W03");
    const daily = await sluice(
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-01-01",
      "--to-partition",
      "2026-01-03",
      "--dry-run",
    );
    expect(daily.code).toBe(0);
    expect(daily.out).toContain("partitions: 2026-01-01, 2026-01-02, 2026-01-03");
  });
});
