/**
 * Real worker processes killed with real signals (SIGKILL, SIGSTOP/SIGCONT) on a
 * real SQLite file. Side effects are appended to files so the test can count them.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { stopWhere, writeLockHeld } from "../helpers/sqlite-lock.js";
import { eventually } from "../helpers/tmp.js";

const CRASHY = `
import { appendFileSync, existsSync } from "node:fs";
import { defineWorkflow } from "tako.sh";
const hang = () => new Promise(() => {});
export default defineWorkflow<{ dir: string; block: "before-checkpoint" | "after-checkpoint" | "slow-first-attempt" | "held-first-attempt" }>("crashy", {
  retries: 5,
  backoff: { base: 10, max: 10 },
  handler: async (p, ctx) => {
    const released = () => existsSync(p.dir + "/release");
    const a = await ctx.run("side-effect", async (step) => {
      appendFileSync(p.dir + "/effects.log", "effect attempt " + ctx.attempt + "\\n");
      if (p.block === "before-checkpoint" && !released()) {
        appendFileSync(p.dir + "/markers.log", "blocked before checkpoint\\n");
        await hang();
      }
      if (p.block === "slow-first-attempt" && ctx.attempt === 1) {
        appendFileSync(p.dir + "/markers.log", "slow attempt started\\n");
        await new Promise((r) => setTimeout(r, 3000));
        appendFileSync(p.dir + "/markers.log", "slow attempt finished its body\\n");
      }
      if (p.block === "held-first-attempt" && ctx.attempt === 1) {
        appendFileSync(p.dir + "/markers.log", "held attempt started\\n");
        for (let i = 0; i < 600 && !released(); i++) await new Promise((r) => setTimeout(r, 50));
      }
      return "A" + ctx.attempt;
    });
    if (p.block === "after-checkpoint" && !released()) {
      await ctx.run("after", async () => {
        appendFileSync(p.dir + "/markers.log", "blocked after checkpoint\\n");
        await hang();
      });
    }
    return a + "!";
  },
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

function setup() {
  const root = makeProject({ "workflows/crashy.ts": CRASHY });
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  stores.push(store);
  const lines = (file: string) =>
    existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8").trim().split("\n").filter(Boolean) : [];
  const worker = () => spawnSluice(["worker", "--lease", "1s", "--concurrency", "10"], root);
  return { root, store, lines, worker };
}

async function enqueue(root: string, payload: object, id: string) {
  const p = spawnSluice(["enqueue", "crashy", JSON.stringify(payload), "--id", id], root);
  expect(await p.exited).toBe(0);
}

describe("crashes with real processes", () => {
  it("SIGKILL between a step's side effect and its checkpoint: the body runs exactly once more, one result", async () => {
    const { root, store, lines, worker } = setup();
    await enqueue(root, { dir: root, block: "before-checkpoint" }, "kill-before");
    const w1 = worker();
    await eventually(() => lines("markers.log").length === 1);
    w1.proc.kill("SIGKILL");
    expect(await w1.exited).toBe("SIGKILL");
    expect(lines("effects.log")).toEqual(["effect attempt 1"]);
    expect(await store.getSteps("kill-before")).toEqual([]);

    writeFileSync(join(root, "release"), "");
    const w2 = worker();
    await eventually(async () => (await store.getRun("kill-before"))?.status === "succeeded", 15_000);
    w2.proc.kill("SIGTERM");
    expect(await w2.exited).toBe(0);
    const run = (await store.getRun("kill-before"))!;
    expect(run.result).toBe('"A2!"');
    expect(run.attempt).toBe(2);
    expect(lines("effects.log")).toEqual(["effect attempt 1", "effect attempt 2"]);
    expect((await store.getSteps("kill-before")).map((s) => [s.key, s.value])).toEqual([["side-effect", '"A2"']]);
  });

  it("SIGKILL after the checkpoint: the step is not run again", async () => {
    const { root, store, lines, worker } = setup();
    await enqueue(root, { dir: root, block: "after-checkpoint" }, "kill-after");
    const w1 = worker();
    await eventually(() => lines("markers.log").length === 1);
    w1.proc.kill("SIGKILL");
    await w1.exited;
    writeFileSync(join(root, "release"), "");
    const w2 = worker();
    await eventually(async () => (await store.getRun("kill-after"))?.status === "succeeded", 15_000);
    w2.proc.kill("SIGTERM");
    await w2.exited;
    expect((await store.getRun("kill-after"))!.result).toBe('"A1!"');
    expect(lines("effects.log")).toEqual(["effect attempt 1"]);
  });

  it("a zombie worker paused past its lease is fenced after SIGCONT; the run has one result", async () => {
    const { root, store, lines, worker } = setup();
    await enqueue(root, { dir: root, block: "slow-first-attempt" }, "zombie");
    const a = worker();
    await eventually(() => lines("markers.log").includes("slow attempt started"));
    // Paused in its step body, between two commits: a stop inside a heartbeat's commit keeps
    // SQLite's write lock and holds every writer up, B too (the next test; once in about 200 stops).
    expect(await stopWhere(a.proc, join(root, ".sluice", "sluice.db"), false)).not.toBeNull();
    const b = worker();
    await eventually(async () => (await store.getRun("zombie"))?.status === "succeeded", 15_000);
    expect((await store.getRun("zombie"))!.result).toBe('"A2!"');
    a.proc.kill("SIGCONT");
    await a.waitFor(/lost the lease on run zombie/);
    // The zombie's step body completes and tries to checkpoint; the fence refuses it.
    await eventually(() => lines("markers.log").includes("slow attempt finished its body"));
    await new Promise((r) => setTimeout(r, 300));
    const run = (await store.getRun("zombie"))!;
    expect(run).toMatchObject({ status: "succeeded", result: '"A2!"', attempt: 2 });
    expect((await store.getSteps("zombie")).map((s) => [s.key, s.value])).toEqual([["side-effect", '"A2"']]);
    // A frozen worker's lease genuinely expired: B says so (not "released", which is for a worker known gone).
    expect(b.stdout()).toContain(
      "↻ crashy zombie attempt 1 failed (attempt 1 stopped heartbeating (its worker died or stalled) and its lease expired); retry 2/6",
    );
    expect(b.stdout()).not.toMatch(/released/);
    a.proc.kill("SIGTERM");
    b.proc.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });

  it("a worker stopped inside a commit holds every other writer up until SIGCONT (SQLite); then the run has one result", async (ctx) => {
    const { root, store, lines, worker } = setup();
    const db = join(root, ".sluice", "sluice.db");
    await enqueue(root, { dir: root, block: "held-first-attempt" }, "stuck-lock");
    const a = worker();
    await eventually(() => lines("markers.log").includes("held attempt started"));
    // A's step body runs (heartbeating) until the release file appears: stop it inside a commit.
    const stops = await stopWhere(a.proc, db, true);
    // Not mocked: landing a stop inside a commit is luck (about 1 in 200 stops); without it, skipped.
    if (stops === null) {
      a.proc.kill("SIGCONT");
      ctx.skip();
    }
    const b = worker();
    await new Promise((r) => setTimeout(r, 3_000));
    // Past A's lease, and B has not taken the run: no writer gets the lock while A is stopped.
    expect(writeLockHeld(db)).toBe(true);
    expect((await store.getRun("stuck-lock"))!).toMatchObject({ status: "running", attempt: 1 });
    a.proc.kill("SIGCONT");
    writeFileSync(join(root, "release"), "");
    await eventually(async () => (await store.getRun("stuck-lock"))?.status === "succeeded", 20_000);
    const run = (await store.getRun("stuck-lock"))!;
    expect((await store.getSteps("stuck-lock")).map((s) => s.key)).toEqual(["side-effect"]);
    expect(run.result).toMatch(/^"A[12]!"$/);
    a.proc.kill("SIGTERM");
    b.proc.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 60_000);

  it("a run whose worker dies on every attempt ends failed after its last attempt", async () => {
    const { root, store, lines, worker } = setup();
    const body = { dir: root, block: "before-checkpoint" };
    const p = spawnSluice(["enqueue", "crashy", JSON.stringify(body), "--id", "poison", "--retries", "1"], root);
    expect(await p.exited).toBe(0);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const w = worker();
      await eventually(() => lines("markers.log").length === attempt, 15_000);
      w.proc.kill("SIGKILL");
      await w.exited;
    }
    const w = worker();
    await eventually(async () => (await store.getRun("poison"))?.status === "failed", 15_000);
    w.proc.kill("SIGTERM");
    await w.exited;
    const run = (await store.getRun("poison"))!;
    // Killed workers nobody supervises: their leases ran out, so the error says expired, not released.
    expect(run.error).toMatchObject({ name: "LeaseExpiredError", code: "LEASE_EXPIRED" });
    expect(run.error!.message).toBe(
      "attempt 2 stopped heartbeating (its worker died or stalled) and its lease expired; that was the last of 2 attempts",
    );
    expect(lines("effects.log")).toHaveLength(2);
  });
});
