/**
 * A selective `sluice pipeline run` as a durable run, as users run it: the real binary in
 * child processes next to a separate `sluice dev` on the same SQLite file, real signals.
 * A counter file per step and partition, appended to at the very end of the step, proves
 * that each step ran once whichever process ran it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { RunRecord } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const COUNTER = `
import { appendFileSync, mkdirSync } from 'node:fs';
function count(step: string, partition: string) {
  const dir = process.env.COUNT_DIR!;
  mkdirSync(dir, { recursive: true });
  appendFileSync(dir + '/' + step + '-' + partition, 'x');
}
const pause = () => new Promise((r) => setTimeout(r, Number(process.env.STEP_MS ?? 300)));`;

const CHAIN = {
  "f/chain/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
${COUNTER}
export async function main(partition: string) {
  await pause();
  await wmill.writeS3File({ s3: \`chain/raw/\${partition}.json\` }, JSON.stringify({ day: partition }));
  count('extract', partition);
}
`,
  "f/chain/clean.ts": `// pipeline
// on s3://chain/raw/{partition}.json
import * as wmill from 'windmill-client';
${COUNTER}
export async function main(partition: string) {
  await pause();
  const raw = JSON.parse(await wmill.loadS3File({ s3: \`chain/raw/\${partition}.json\` }));
  await wmill.writeS3File({ s3: \`chain/clean/\${partition}.json\` }, JSON.stringify({ ...raw, clean: true }));
  count('clean', partition);
}
`,
  "f/chain/report.ts": `// pipeline
// on s3://chain/clean/{partition}.json
import * as wmill from 'windmill-client';
${COUNTER}
export async function main(partition: string) {
  await pause();
  await wmill.writeS3File({ s3: \`chain/report/\${partition}.json\` }, '{}');
  count('report', partition);
}
`,
};

function counters(dir: string): Record<string, number> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8").length]));
}

const once = (day: string) => ({ [`extract-${day}`]: 1, [`clean-${day}`]: 1, [`report-${day}`]: 1 });

function planId(text: string): string {
  const m = /plan run (\S+):/.exec(text);
  if (!m) throw new Error(`no plan id in:\n${text}`);
  return m[1]!;
}

/** Waits until the run is final, reading the SQLite file directly; returns it and its children. */
async function finalRun(root: string, id: string): Promise<{ run: RunRecord; steps: RunRecord[] }> {
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  try {
    const run = await eventually(
      async () => {
        const r = await store.getRun(id);
        return r && ["succeeded", "failed", "cancelled"].includes(r.status) ? r : null;
      },
      60_000,
      100,
    );
    return { run, steps: await store.listRuns({ parentId: id, limit: 100 }) };
  } finally {
    await store.close();
  }
}

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("sluice pipeline run as a durable run", { timeout: 180_000 }, () => {
  it("--detach, Ctrl-C (detach), SIGKILL of the CLI: a separate sluice dev finishes each plan, every step once", async () => {
    const root = makeProject(CHAIN, "sluice-plan-durable-");
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "500" };
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, env);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 60_000);

    // --detach: start, print the id and how to follow/cancel, exit 0.
    const detached = await done(
      spawnSluice(["pipeline", "run", "f/chain", "--partition", "2026-05-01", "--detach"], root, env),
    );
    expect(detached.code, detached.out + detached.err).toBe(0);
    const a = planId(detached.out);
    expect(detached.out).toContain(`sluice pipeline resume ${a}`);
    expect(detached.out).toContain(`sluice pipeline cancel ${a}`);
    expect((await finalRun(root, a)).run.status).toBe("succeeded");

    // Ctrl-C (no flag): detaches with exit 130 and the hints; the plan goes on in sluice dev.
    const cli = spawnSluice(["pipeline", "run", "f/chain", "--partition", "2026-05-02", "--lease", "1s"], root, env);
    await cli.waitFor(/step \S*extract\S* succeeded/, 60_000);
    cli.proc.kill("SIGINT");
    const interrupted = await done(cli);
    expect(interrupted.code, interrupted.out + interrupted.err).toBe(130);
    const b = planId(interrupted.err);
    expect(interrupted.err).toContain(`detached from plan ${b}`);
    expect(interrupted.err).toContain(`sluice pipeline resume ${b}`);
    expect(interrupted.err).toContain(`sluice pipeline cancel ${b}`);
    expect((await finalRun(root, b)).run.status).toBe("succeeded");

    // SIGKILL of the CLI mid-run: sluice dev takes over once the CLI worker's lease expires.
    const killed = spawnSluice(["pipeline", "run", "f/chain", "--partition", "2026-05-03", "--lease", "1s"], root, env);
    await killed.waitFor(/step \S*extract\S* succeeded/, 60_000);
    killed.proc.kill("SIGKILL");
    await killed.exited;
    const c = planId(killed.stderr());
    expect(counters(env.COUNT_DIR)["report-2026-05-03"]).toBeUndefined();
    const { run, steps } = await finalRun(root, c);
    expect(run.status).toBe("succeeded");
    expect(steps.filter((s) => s.status === "succeeded")).toHaveLength(3);
    dev.proc.kill("SIGTERM");
    await dev.exited;
    expect(counters(env.COUNT_DIR)).toEqual({ ...once("2026-05-01"), ...once("2026-05-02"), ...once("2026-05-03") });
  });

  it("Ctrl-C with --cancel-on-interrupt cancels after the running step; resume runs only the rest", async () => {
    const root = makeProject(CHAIN, "sluice-plan-cancel-");
    const env = { COUNT_DIR: join(root, "counts"), STEP_MS: "800" };
    const cli = spawnSluice(
      ["pipeline", "run", "f/chain", "--partition", "2026-05-01", "--cancel-on-interrupt"],
      root,
      env,
    );
    await cli.waitFor(/step \S*extract\S* succeeded/, 60_000);
    cli.proc.kill("SIGINT");
    const cancelled = await done(cli);
    expect(cancelled.code, cancelled.out + cancelled.err).toBe(130);
    const id = planId(cancelled.err);
    expect(cancelled.err).toContain(`cancelled plan ${id}`);
    const { run, steps } = await finalRun(root, id);
    expect(run.status).toBe("cancelled");
    // The step running at Ctrl-C (clean, if it had started) finished and was not cut off;
    // report never started.
    expect(steps.length).toBeLessThanOrEqual(2);
    expect(steps.every((s) => s.status === "succeeded")).toBe(true);
    const before = counters(env.COUNT_DIR);
    expect(before["extract-2026-05-01"]).toBe(1);
    expect(before["report-2026-05-01"]).toBeUndefined();
    expect(before["clean-2026-05-01"] ?? 0).toBe(steps.length - 1);
    const resumed = await done(spawnSluice(["pipeline", "resume", id], root, env));
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.err).toContain("already done: f/chain/extract.ts");
    expect(counters(env.COUNT_DIR)).toEqual(once("2026-05-01"));
    const cancelDone = await done(spawnSluice(["pipeline", "cancel", id], root));
    expect(cancelDone.code).toBe(0);
    expect(cancelDone.out).toContain("had already finished (cancelled)");
    const notPlan = await done(spawnSluice(["pipeline", "cancel", "nope"], root));
    expect(notPlan.code).not.toBe(0);
    expect(notPlan.err).toContain("is not a pipeline plan run");
  });
});
