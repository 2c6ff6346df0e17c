/**
 * A whole-table asset written by a step without `// partitioned` that a partitioned cascade ran
 * (the run carries the chain's partition) shows as one entry in `sluice pipeline status` (text
 * and `--json`) and `GET /api/pipelines/status` (the UI's data): its latest write, that write's
 * run and time; never one row per partition of the chain. The same step's `{partition}` write
 * stays per partition. Real binaries: a separate `sluice dev` runs the cascades the CLI enqueues.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/day/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`day/raw/\${partition}.json\` }, JSON.stringify({ day: partition }));
}
`,
  "f/day/summary.ts": `// pipeline
// on s3://day/raw/{partition}.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: 'day/summary.json' }, JSON.stringify({ last: partition }));
  await wmill.writeS3File({ s3: \`day/by/\${partition}.json\` }, JSON.stringify({ day: partition }));
}
`,
  "f/day/total.sql": `-- pipeline
-- on s3://day/raw/{partition}.json
-- materialize ducklake://main/days

SELECT 1 AS n
`,
};

interface Written {
  partition: string | null;
  run: string;
  script: string;
  at: number;
}
interface Status {
  scripts: Array<{ path: string; lastRun: { id: string; status: string; partition: string | null } | null }>;
  assets: Array<{ uri: string; partitions: Written[] }>;
}

describe("pipeline status of a whole-table asset a partitioned cascade wrote", () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  beforeAll(async () => {
    ({ root, dev } = await startDev(FILES));
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  }, 60_000);
  afterAll(async () => {
    if (dev) await stopDev(dev);
  });

  const sluice = async (...args: string[]) => {
    const r = await finished(spawnSluice(args, root));
    expect(r.code, r.out + r.err).toBe(0);
    return r.out;
  };
  const status = async () => JSON.parse(await sluice("pipeline", "status", "f/day", "--json")) as Status;
  const lastRun = (s: Status, path: string) => s.scripts.find((x) => x.path === path)!.lastRun;
  const asset = (s: Status, uri: string) => s.assets.find((a) => a.uri === uri)!.partitions;

  /** Enqueues extract for `day` and waits until both downstream steps succeeded for it. */
  const cascade = async (day: string) => {
    await sluice("enqueue", "f/day/extract", JSON.stringify({ partition: day }));
    return eventually(
      async () => {
        const s = await status();
        const ok = ["f/day/summary.ts", "f/day/total.sql"].every((p) => {
          const r = lastRun(s, p);
          return r?.status === "succeeded" && r.partition === day;
        });
        return ok ? s : undefined;
      },
      60_000,
      300,
    );
  };

  it("shows one entry, the latest write, in the CLI (text and --json) and the API", async () => {
    await cascade("2026-05-01");
    const s = await cascade("2026-05-02");
    const summaryRun = lastRun(s, "f/day/summary.ts")!.id;
    const totalRun = lastRun(s, "f/day/total.sql")!.id;

    const summary = asset(s, "s3://day/summary.json");
    expect(summary).toEqual([
      {
        uri: "s3://day/summary.json",
        partition: null,
        run: summaryRun,
        script: "f/day/summary.ts",
        at: expect.any(Number),
      },
    ]);
    expect(asset(s, "ducklake://main/days")).toEqual([
      {
        uri: "ducklake://main/days",
        partition: null,
        run: totalRun,
        script: "f/day/total.sql",
        at: expect.any(Number),
      },
    ]);
    // the step's {partition} write is per partition, as its runs write one object per day
    expect(asset(s, "s3://day/by/{partition}.json").map((p) => p.partition)).toEqual(["2026-05-01", "2026-05-02"]);

    const text = await sluice("pipeline", "status", "f/day");
    expect(text).toMatch(/\n {4}s3:\/\/day\/summary\.json {2}written: \(unpartitioned\)\n/);
    expect(text).toMatch(/\n {4}ducklake:\/\/main\/days {2}written: \(unpartitioned\)\n/);
    expect(text).toMatch(/\n {4}s3:\/\/day\/by\/\{partition\}\.json {2}written: 2026-05-01, 2026-05-02\n/);

    const res = await fetch(`${url}/api/pipelines/status?folder=f/day`);
    expect(res.status).toBe(200);
    const api = (await res.json()) as Status;
    expect(asset(api, "s3://day/summary.json")).toEqual(summary);
    expect(asset(api, "ducklake://main/days")).toHaveLength(1);
  }, 180_000);
});
