/**
 * A release switch drains in-flight claims first (seed 002: "a new release replaces the previous
 * worker runtime after in-flight work drains"): `sluice worker --release` stops claiming when a
 * newer release is published, lets the claims it holds finish on their version, then loads the new
 * release and claims again. Real processes: `sluice deploy` and `sluice worker --release` on a
 * shared SQLite file, the worker in an empty folder.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { sluice, sluiceJson } from "./fixtures.js";

/** A workflow whose one claim lasts `ms` (an inline sleep keeps the lease), answering `answer`. */
const busy = (answer: string, ms: number) => `import { defineWorkflow } from "sluice";

export const busy = defineWorkflow("busy", {
  handler: async (_p: unknown, ctx) => {
    await ctx.sleep("work", "${ms}ms");
    return "${answer}";
  },
});
`;

interface RunJson {
  id: string;
  status: string;
  result: unknown;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A deployer folder, a worker machine folder and a shared database with release 1 published. */
async function setUp(ms: number) {
  const db = join(tempDir("sluice-drain-db-"), "shared.db");
  const deployer = makeProject({ "workflows/busy.ts": busy("v1", ms) }, "sluice-drain-deployer-");
  const machine = tempDir("sluice-drain-machine-");
  const first = await sluice(deployer, "deploy", "--db", db);
  expect(first.code, first.err).toBe(0);
  const run = async (id: string) =>
    (await sluiceJson<RunJson[]>(machine, "runs", "--db", db, "--workflow", "busy", "--json")).find((r) => r.id === id);
  const finished = async (id: string): Promise<RunJson> =>
    eventually(async () => {
      const r = await run(id);
      return r && r.status === "succeeded" ? r : null;
    }, 30_000);
  const enqueue = async () =>
    (await sluiceJson<{ id: string }>(machine, "enqueue", "busy", "{}", "--db", db, "--json")).id;
  /** Publishes release 2 (answering "v2") while a run of release 1 holds its claim. */
  const deployV2 = async () => {
    writeFiles(deployer, { "workflows/busy.ts": busy("v2", ms) });
    const r = await sluice(deployer, "deploy", "--db", db);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("published release 2");
  };
  return { db, machine, run, finished, enqueue, deployV2 };
}

describe("sluice worker --release: a switch drains in-flight claims", () => {
  it("stops claiming, lets the running claim finish on release 1, then runs new work on release 2", async () => {
    const t = await setUp(8_000);
    const worker = spawnSluice(["worker", "--release", "--db", t.db, "--inline-sleep", "10s"], t.machine);
    await worker.waitFor(/worker .* ready/, 30_000);
    const old = await t.enqueue();
    await eventually(async () => (await t.run(old))?.status === "running", 15_000);
    await t.deployV2();
    await worker.waitFor(/release 2: draining 1 in-flight claim\(s\) before switching/, 10_000);
    // Enqueued while the worker drains: it must wait for the old claim to end.
    const fresh = await t.enqueue();
    const before = await t.finished(old);
    const after = await t.finished(fresh);
    expect(before.result).toBe("v1");
    expect(after.result).toBe("v2");
    expect(Date.parse(after.startedAt!)).toBeGreaterThanOrEqual(Date.parse(before.finishedAt!));
    const out = worker.output();
    expect(out.indexOf("release 2 loaded (was 1)")).toBeGreaterThan(out.indexOf("release 2: draining"));
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 90_000);

  it("with --release-drain shorter than the claim: switches anyway and says so; the old run still ends on release 1", async () => {
    // Long enough that the deploy (bundling, seconds on a loaded machine) lands while it runs.
    const t = await setUp(12_000);
    const worker = spawnSluice(
      ["worker", "--release", "--db", t.db, "--inline-sleep", "20s", "--release-drain", "500ms"],
      t.machine,
    );
    await worker.waitFor(/worker .* ready/, 30_000);
    const old = await t.enqueue();
    await eventually(async () => (await t.run(old))?.status === "running", 15_000);
    await t.deployV2();
    await worker.waitFor(/release 2: 1 claim\(s\) still running after 500 ms: switching anyway/, 10_000);
    await worker.waitFor(/release 2 loaded \(was 1\)/, 10_000);
    const fresh = await t.enqueue();
    const before = await t.finished(old);
    const after = await t.finished(fresh);
    expect(before.result).toBe("v1");
    expect(after.result).toBe("v2");
    // The switch did not wait: the new run started while the old claim still ran.
    expect(Date.parse(after.startedAt!)).toBeLessThan(Date.parse(before.finishedAt!));
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 90_000);

  it("refuses a bad --release-drain with a clear line", async () => {
    const r = await sluice(tempDir("sluice-drain-bad-"), "worker", "--release", "--release-drain", "soon");
    expect(r.code).toBe(1);
    expect(r.err).toContain("--release-drain");
  }, 30_000);
});
