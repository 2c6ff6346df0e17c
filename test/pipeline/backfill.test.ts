/**
 * Durable backfills as users run them: the real `sluice` binary in child processes, killed
 * with real signals, a separate `sluice worker`, one SQLite file. A counter file per step
 * and partition, appended to at the very end of the step, proves that every partition ran
 * once: a resumed backfill finishes only what was missing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backfillProgress } from "../../src/pipeline/runtime/backfill-progress.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const COUNTER = `
import { appendFileSync, mkdirSync } from 'node:fs';
function count(step: string, partition: string) {
  const dir = process.env.COUNT_DIR!;
  mkdirSync(dir, { recursive: true });
  appendFileSync(dir + '/' + step + '-' + partition, 'x');
}`;

const DAILY = {
  "f/daily/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
${COUNTER}
export async function main(partition: string) {
  await new Promise((r) => setTimeout(r, Number(process.env.STEP_MS ?? 300)));
  if (partition === process.env.FAIL_AT) throw new Error('no data for ' + partition);
  await wmill.writeS3File({ s3: \`daily/raw/\${partition}.json\` }, JSON.stringify({ day: partition }));
  count('extract', partition);
}
`,
  "f/daily/load.ts": `// pipeline
// on s3://daily/raw/{partition}.json
import * as wmill from 'windmill-client';
${COUNTER}
export async function main(partition: string) {
  const raw = JSON.parse(await wmill.loadS3File({ s3: \`daily/raw/\${partition}.json\` }));
  await wmill.writeS3File({ s3: \`daily/clean/\${partition}.json\` }, JSON.stringify({ ...raw, clean: true }));
  count('load', partition);
}
`,
};

const DAYS = ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05", "2026-05-06"];

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

/** Counter values by file name (`extract-2026-05-01` → 1). */
function counters(dir: string): Record<string, number> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8").length]));
}

function everyOnce(days: readonly string[]): Record<string, number> {
  return Object.fromEntries(days.flatMap((d) => [[`extract-${d}`, 1] as const, [`load-${d}`, 1] as const]));
}

/** Waits until the backfill has `n` succeeded partitions, reading the SQLite file directly. */
async function finishedAtLeast(root: string, id: string, n: number): Promise<void> {
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  try {
    await eventually(async () => (await backfillProgress(store, id)).counts.succeeded >= n, 60_000, 50);
  } finally {
    await store.close();
  }
}

function backfillId(out: string): string {
  const m = /^backfill (\S+) of /m.exec(out);
  if (!m) throw new Error(`no backfill id in:\n${out}`);
  return m[1]!;
}

describe("durable backfills as processes", { timeout: 120_000 }, () => {
  it("SIGKILL of the CLI mid-backfill: resume in a new process finishes only what was missing", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "400" };
    const cli = spawnSluice(
      ["pipeline", "backfill", "f/daily", "--from-partition", DAYS[0]!, "--to-partition", DAYS[5]!, "--lease", "1s"],
      root,
      env,
    );
    await cli.waitFor(/2\/6 2026-05-02 ✓/, 60_000);
    cli.proc.kill("SIGKILL");
    await cli.exited;
    const id = backfillId(cli.stdout());
    const before = counters(env.COUNT_DIR);
    expect(Object.keys(before).length).toBeLessThan(12);
    const resumed = await done(spawnSluice(["pipeline", "backfill", "resume", id, "--lease", "1s"], root, env));
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.out).toContain(`continuing backfill ${id}`);
    expect(resumed.out).toContain("backfilled 6 partition(s)");
    expect(counters(env.COUNT_DIR)).toEqual(everyOnce(DAYS));
    const again = await done(
      spawnSluice(
        ["pipeline", "backfill", "f/daily", "--from-partition", DAYS[0]!, "--to-partition", DAYS[5]!],
        root,
        env,
      ),
    );
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("backfilled 6 partition(s), 6 skipped as already done");
    expect(counters(env.COUNT_DIR)).toEqual(everyOnce(DAYS));
  });

  it("SIGKILL of the worker mid-backfill: another worker finishes it, each partition ran once", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "400" };
    const started = await done(
      spawnSluice(
        ["pipeline", "backfill", "f/daily", "--from-partition", DAYS[0]!, "--to-partition", DAYS[5]!, "--detach"],
        root,
        env,
      ),
    );
    expect(started.code, started.err).toBe(0);
    expect(started.out).toContain("sluice pipeline backfill status");
    const id = backfillId(started.out);
    const worker = spawnSluice(["worker", "--lease", "1s"], root, env);
    // Kill once two partitions are recorded as finished (not on a counter file: killing right
    // after a step's side effect and before its checkpoint would re-run it, which is the
    // at-least-once contract of step bodies, not what this test is about).
    await finishedAtLeast(root, id, 2);
    worker.proc.kill("SIGKILL");
    await worker.exited;
    expect(Object.keys(counters(env.COUNT_DIR)).length).toBeLessThan(12);
    const status = await done(spawnSluice(["pipeline", "backfill", "status", id, "--json"], root));
    expect(["running", "waiting", "pending"]).toContain(JSON.parse(status.out).status);
    const second = spawnSluice(["worker", "--lease", "1s"], root, env);
    const follow = await done(spawnSluice(["pipeline", "backfill", "status", id, "--follow"], root));
    second.proc.kill("SIGTERM");
    expect(follow.code, follow.out + follow.err).toBe(0);
    expect(follow.out).toContain("backfilled 6 partition(s)");
    expect(counters(env.COUNT_DIR)).toEqual(everyOnce(DAYS));
  });

  it("SIGKILL of sluice server mid-backfill: a restarted server finishes it, each partition ran once", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "400" };
    const started = await done(
      spawnSluice(
        ["pipeline", "backfill", "f/daily", "--from-partition", DAYS[0]!, "--to-partition", DAYS[5]!, "--detach"],
        root,
        env,
      ),
    );
    expect(started.code, started.err).toBe(0);
    const id = backfillId(started.out);
    const server = spawnSluice(["server", "--port", "0"], root, env);
    // Kill once two partitions are recorded as finished (not on a counter file: killing right
    // after a step's side effect and before its checkpoint would re-run it, which is the
    // at-least-once contract of step bodies, not what this test is about).
    await finishedAtLeast(root, id, 2);
    server.proc.kill("SIGKILL");
    await server.exited;
    // Its lane worker notices the server is gone and exits (after finishing what it runs).
    const mid = JSON.parse((await done(spawnSluice(["pipeline", "backfill", "status", id, "--json"], root))).out);
    expect(["running", "waiting", "pending"]).toContain(mid.status);
    const again = spawnSluice(["server", "--port", "0"], root, env);
    const follow = await done(spawnSluice(["pipeline", "backfill", "status", id, "--follow"], root));
    again.proc.kill("SIGTERM");
    expect(follow.code, follow.out + follow.err).toBe(0);
    expect(follow.out).toContain("backfilled 6 partition(s)");
    expect(counters(env.COUNT_DIR)).toEqual(everyOnce(DAYS));
  });

  it("Ctrl-C with --cancel-on-interrupt cancels; resume runs the rest; plain Ctrl-C detaches", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "400" };
    const range = ["--from-partition", DAYS[0]!, "--to-partition", DAYS[5]!];
    const cli = spawnSluice(["pipeline", "backfill", "f/daily", ...range, "--cancel-on-interrupt"], root, env);
    await cli.waitFor(/1\/6 2026-05-01 ✓/, 60_000);
    cli.proc.kill("SIGINT");
    const cancelled = await done(cli);
    expect(cancelled.code).toBe(130);
    const id = backfillId(cancelled.out);
    expect(cancelled.err).toContain(`cancelled backfill ${id}`);
    const st = JSON.parse((await done(spawnSluice(["pipeline", "backfill", "status", id, "--json"], root))).out);
    expect(st.status).toBe("cancelled");
    expect(st.counts.succeeded).toBeLessThan(6);
    const resumed = await done(spawnSluice(["pipeline", "backfill", "resume", id], root, env));
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.out).toMatch(new RegExp(`resuming backfill ${id} \\(cancelled\\) as backfill \\S+`));
    expect(resumed.out).toContain("2026-05-01 skipped (already done)");
    expect(counters(env.COUNT_DIR)).toEqual(everyOnce(DAYS));

    const days2 = ["2026-06-01", "2026-06-04"];
    const detaching = spawnSluice(
      ["pipeline", "backfill", "f/daily", "--from-partition", days2[0]!, "--to-partition", days2[1]!],
      root,
      env,
    );
    await detaching.waitFor(/1\/4 2026-06-01 ✓/, 60_000);
    detaching.proc.kill("SIGINT");
    const detached = await done(detaching);
    expect(detached.code).toBe(130);
    const id2 = backfillId(detached.out);
    expect(detached.err).toContain(`detached from backfill ${id2}`);
    expect(detached.err).toContain(`sluice pipeline backfill cancel ${id2}`);
    const st2 = JSON.parse((await done(spawnSluice(["pipeline", "backfill", "status", id2, "--json"], root))).out);
    expect(["running", "waiting", "pending"]).toContain(st2.status);
    const cancel = await done(spawnSluice(["pipeline", "backfill", "cancel", id2], root));
    expect(cancel.code, cancel.err).toBe(0);
    expect(cancel.out).toContain(`cancelled backfill ${id2}`);
  });

  it("a failed partition is retried alone by resume", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "10" };
    const days = ["2026-05-01", "2026-05-02", "2026-05-03"];
    // A real cascade first: extract for another day dispatches load.
    expect(
      (await done(spawnSluice(["enqueue", "f/daily/extract", '{"partition": "2026-04-01"}'], root, env))).code,
    ).toBe(0);
    const w = await done(spawnSluice(["worker", "--exit-when-idle", "--idle", "500ms"], root, env));
    expect(w.code, w.err).toBe(0);
    const first = await done(
      spawnSluice(
        [
          "pipeline",
          "backfill",
          "f/daily",
          "--from-partition",
          days[0]!,
          "--to-partition",
          days[2]!,
          "--concurrency",
          "3",
        ],
        root,
        { ...env, FAIL_AT: "2026-05-02" },
      ),
    );
    expect(first.code).toBe(1);
    const id = backfillId(first.out);
    expect(first.out).toContain(
      `1 of 3 partition(s) failed: 2026-05-02; retry only them with: sluice pipeline backfill resume ${id}`,
    );
    const resumed = await done(spawnSluice(["pipeline", "backfill", "resume", id], root, env));
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.out).toContain("backfilled 3 partition(s), 2 skipped as already done");
    expect(counters(env.COUNT_DIR)).toEqual({ ...everyOnce(days), "extract-2026-04-01": 1, "load-2026-04-01": 1 });
    // The backfills' steps ran with the cascade off: those skips stay out of the decision log.
    const st = JSON.parse((await done(spawnSluice(["pipeline", "status", "f/daily", "--json"], root))).out);
    expect(st.decisions).toEqual([
      expect.objectContaining({ outcome: "dispatched", subscriber: "f/daily/load.ts", partition: "2026-04-01" }),
    ]);
    const forced = await done(
      spawnSluice(
        ["pipeline", "backfill", "f/daily", "--from-partition", days[0]!, "--to-partition", days[0]!, "--force"],
        root,
        env,
      ),
    );
    expect(forced.code, forced.err).toBe(0);
    expect(counters(env.COUNT_DIR)["extract-2026-05-01"]).toBe(2);
    expect(counters(env.COUNT_DIR)["load-2026-05-01"]).toBe(2);
  });
});

const writer = (partitioned: string, key: string) => `// pipeline
// partitioned ${partitioned}
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`mixed/${key}/\${partition}.json\` }, '{}');
}
`;

const MIXED = {
  "f/mixed/hourly.ts": writer("hourly", "hourly"),
  "f/mixed/ny.ts": writer('daily tz="America/New_York" format="%Y/%m/%d"', "ny"),
  "f/mixed/weekly.ts": writer("weekly", "weekly"),
  "f/mixed/monthly.ts": writer("monthly", "monthly"),
  "f/mixed/tenant.ts": writer('dynamic key="$.tenant"', "tenant"),
};

/** Object keys written under `.sluice/s3/mixed/`. */
function written(root: string): string[] {
  const base = join(root, ".sluice", "s3", "mixed");
  if (!existsSync(base)) return [];
  return readdirSync(base, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(base.length + 1))
    .sort();
}

describe("--concurrency", { timeout: 60_000 }, () => {
  it("runs at most n steps at once across the backfill, and uses the n slots", async () => {
    const root = makeProject(DAILY);
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "300" };
    const res = await done(
      spawnSluice(
        [
          "pipeline",
          "backfill",
          "f/daily",
          "--from-partition",
          DAYS[0]!,
          "--to-partition",
          DAYS[5]!,
          "--concurrency",
          "2",
        ],
        root,
        env,
      ),
    );
    expect(res.code, res.err).toBe(0);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      const steps = (await store.listRuns({ limit: 1000 })).filter((r) => r.workflow.startsWith("f/daily/"));
      expect(steps).toHaveLength(12);
      // The most step runs alive at one instant, from their start and finish times.
      const edges = steps.flatMap((r) => [
        [r.startedAt!, 1],
        [r.finishedAt!, -1],
      ]) as Array<[number, number]>;
      edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let alive = 0;
      let most = 0;
      for (const [, d] of edges) most = Math.max(most, (alive += d));
      expect(most).toBe(2);
    } finally {
      await store.close();
    }
  });
});

describe("typed backfill ranges as processes", { timeout: 60_000 }, () => {
  it("an hourly range on a mixed-scheme folder runs only the hourly step and says why the others are left out", async () => {
    const root = makeProject(MIXED);
    const res = await done(
      spawnSluice(
        ["pipeline", "backfill", "f/mixed", "--from-partition", "2026-05-01T00", "--to-partition", "2026-05-01T01"],
        root,
      ),
    );
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain("2 hourly (tz=UTC, format=%Y-%m-%dT%H) partition(s) × 1 step(s)");
    expect(res.out).toContain(
      "left out: f/mixed/ny.ts (partitioned daily (tz=America/New_York, format=%Y/%m/%d), not hourly (tz=UTC, format=%Y-%m-%dT%H))",
    );
    expect(res.out).toContain(
      "left out: f/mixed/tenant.ts (partitioned dynamic (key=$.tenant): backfill it with --keys)",
    );
    expect(written(root)).toEqual(["hourly/2026-05-01T00.json", "hourly/2026-05-01T01.json"]);
    const weekly = await done(
      spawnSluice(
        [
          "pipeline",
          "backfill",
          "f/mixed",
          "--scheme",
          "weekly",
          "--from-partition",
          "2026-05-04",
          "--to-partition",
          "2026-05-17",
        ],
        root,
      ),
    );
    expect(weekly.code, weekly.err).toBe(0);
    expect(written(root)).toEqual([
      "hourly/2026-05-01T00.json",
      "hourly/2026-05-01T01.json",
      "weekly/2026-W19.json",
      "weekly/2026-W20.json",
    ]);
  });

  it("a dynamic-key backfill runs the dynamic step once per listed key", async () => {
    const root = makeProject(MIXED);
    const res = await done(spawnSluice(["pipeline", "backfill", "f/mixed", "--keys", "acme,globex", "--json"], root));
    expect(res.code, res.err).toBe(0);
    const out = JSON.parse(res.out);
    expect(out.status).toBe("succeeded");
    expect(out.steps).toEqual(["f/mixed/tenant.ts"]);
    expect(out.partitions.map((p: { partition: string; state: string }) => [p.partition, p.state])).toEqual([
      ["acme", "succeeded"],
      ["globex", "succeeded"],
    ]);
    expect(written(root)).toEqual(["tenant/acme.json", "tenant/globex.json"]);
    const bad = await done(
      spawnSluice(
        [
          "pipeline",
          "backfill",
          "f/mixed",
          "--keys",
          "acme",
          "--from-partition",
          "2026-05-01",
          "--to-partition",
          "2026-05-02",
        ],
        root,
      ),
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/pass either --keys .* not both/);
    expect(written(root)).toEqual(["tenant/acme.json", "tenant/globex.json"]);
  });
});

const MAPPED = {
  "f/mix/daily.ts": `// pipeline
// partitioned daily tz="America/New_York" format="%Y/%m/%d"
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`mix/daily/\${partition}.json\` }, '{}');
  await wmill.writeS3File({ s3: 'mix/daily-latest.json' }, JSON.stringify({ partition }));
}
`,
  "f/mix/weekly.ts": `// pipeline
// partitioned weekly
// on s3://mix/daily-latest.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`mix/weekly/\${partition}.json\` }, '{}');
  await wmill.writeS3File({ s3: 'mix/weekly-latest.json' }, JSON.stringify({ partition }));
}
`,
  "f/mix/monthly.ts": `// pipeline
// partitioned monthly
// on s3://mix/weekly-latest.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`mix/monthly/\${partition}.json\` }, '{}');
}
`,
  "f/mix/unrelated.ts": `// pipeline
// partitioned monthly
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`mix/unrelated/\${partition}.json\` }, '{}');
}
`,
};

describe("partition mappings as processes", { timeout: 60_000 }, () => {
  it("--map-partitions: a daily range runs the weekly and monthly steps downstream once per overlapped window, after the days", async () => {
    const root = makeProject(MAPPED);
    const args = [
      "pipeline",
      "backfill",
      "f/mix",
      "--from-partition",
      "2026/05/30",
      "--to-partition",
      "2026/06/01",
      "--map-partitions",
    ];
    const res = await done(spawnSluice(args, root));
    expect(res.code, res.out + res.err).toBe(0);
    expect(res.out).toContain(
      "mapped: f/mix/weekly.ts for 2 weekly (tz=UTC, format=%G-W%V) partition(s): 2026-W22, 2026-W23 (after the range)",
    );
    expect(res.out).toContain(
      "mapped: f/mix/monthly.ts for 2 monthly (tz=UTC, format=%Y-%m) partition(s): 2026-05, 2026-06 (after the range)",
    );
    expect(res.out).toMatch(/left out: f\/mix\/unrelated\.ts \(partitioned monthly/);
    expect(res.out).toContain("backfilled 7 partition(s)");
    const base = join(root, ".sluice", "s3", "mix");
    const files = readdirSync(base, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.endsWith("-latest.json"))
      .map((e) => join(e.parentPath, e.name).slice(base.length + 1))
      .sort();
    expect(files).toEqual([
      "daily/2026/05/30.json",
      "daily/2026/05/31.json",
      "daily/2026/06/01.json",
      "monthly/2026-05.json",
      "monthly/2026-06.json",
      "weekly/2026-W22.json",
      "weekly/2026-W23.json",
    ]);
    // Each weekly run started after every daily run finished, each monthly after every weekly.
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      const runs = await store.listRuns({ limit: 1000 });
      const of = (w: string) => runs.filter((r) => r.workflow === w && r.status === "succeeded");
      const [d, w, m] = [of("f/mix/daily"), of("f/mix/weekly"), of("f/mix/monthly")];
      expect([d.length, w.length, m.length]).toEqual([3, 2, 2]);
      expect(Math.min(...w.map((r) => r.startedAt!))).toBeGreaterThanOrEqual(Math.max(...d.map((r) => r.finishedAt!)));
      expect(Math.min(...m.map((r) => r.startedAt!))).toBeGreaterThanOrEqual(Math.max(...w.map((r) => r.finishedAt!)));
    } finally {
      await store.close();
    }
    const again = await done(spawnSluice(args, root));
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("backfilled 7 partition(s), 7 skipped as already done");
  });
});
