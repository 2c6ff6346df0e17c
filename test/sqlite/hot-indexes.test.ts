/**
 * SQLite migration 10 (issue 15): `runs_by_status`, `runs_leases` and `runs_ready` gave way to
 * the partial `runs_active` and `runs_unsuccessful`, so that claiming and finishing a run
 * maintain fewer indexes. These tests check that every read that used the old indexes is still
 * served by an index (the plans SQLite chooses for the statements the store really prepares,
 * on a fresh file and after `ANALYZE` of a history), and that a database written before the
 * migration opens, migrates and keeps working.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const open: SqliteStore[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function store(path = join(dir, `plans-${n++}.db`)): SqliteStore {
  const s = openSqliteStore({ path });
  open.push(s);
  return s;
}

const NOW = Date.now();
const DAY = 86_400_000;

/**
 * A history as a long-lived installation has it (direct SQL, as the large bench seeds it):
 * succeeded runs 200 days old, some failed and cancelled, parked runs sleeping or waiting,
 * a few queued and running.
 */
function seed(db: Database.Database, finished = 20_000): void {
  const insert = db.prepare(
    `INSERT INTO runs (id, workflow, queue, status, ready_at, max_attempts, backoff_base, backoff_max, claims,
       lease_owner, lease_expires_at, root_id, created_at, started_at, finished_at, updated_at)
     VALUES (?, ?, 'default', ?, ?, 3, 1000, 60000, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const old = NOW - 200 * DAY;
  db.transaction(() => {
    for (let i = 0; i < finished; i++) {
      const status = finishedStatus(i);
      const id = `done-${i}`;
      insert.run(id, `wf-${i % 5}`, status, null, 1, null, null, id, old + i, old + i, old + i + 1, old + i + 1);
    }
    for (let i = 0; i < 2_000; i++) {
      const id = `parked-${i}`;
      insert.run(id, "wf-0", "waiting", i % 2 ? NOW + DAY + i : null, 1, null, null, id, NOW, NOW, null, NOW);
    }
    for (let i = 0; i < 20; i++)
      insert.run(`queued-${i}`, "wf-1", "pending", NOW - 1000, 0, null, null, `queued-${i}`, NOW, null, null, NOW);
    for (let i = 0; i < 10; i++)
      insert.run(`running-${i}`, "wf-2", "running", null, 1, "w", NOW - 1, `running-${i}`, NOW, NOW, null, NOW);
  })();
}

/** The status of the `i`th seeded finished run. */
const finishedStatus = (i: number) => (i % 50 === 0 ? "failed" : i % 97 === 0 ? "cancelled" : "succeeded");
const seededWith = (status: string, finished = 20_000) =>
  Array.from({ length: finished }, (_, i) => finishedStatus(i)).filter((st) => st === status).length;

/** The plan of `sql` (EXPLAIN QUERY PLAN, every parameter bound to 1), as one line. */
function plan(db: Database.Database, sql: string): string {
  const named = [...new Set(sql.match(/@\w+/g) ?? [])];
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const rows = (
    named.length
      ? stmt.all(Object.fromEntries(named.map((k) => [k.slice(1), 1])))
      : stmt.all(...Array<number>((sql.match(/\?/g) ?? []).length).fill(1))
  ) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join(" | ");
}

/** The plans of the statements on `runs` that `work` makes the store prepare (a fresh store prepares each once). */
async function plansOf(s: SqliteStore, work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const prepare = s.db.prepare.bind(s.db);
  s.db.prepare = ((sql: string) => {
    texts.push(sql);
    return prepare(sql);
  }) as typeof s.db.prepare;
  try {
    await work();
  } finally {
    s.db.prepare = prepare;
  }
  return texts.filter((t) => /\bruns\b/.test(t)).map((t) => plan(s.db, t));
}

/** True when a plan reads every row of `runs` (a scan of the table or of an index over all of it). */
const fullScan = (p: string) => /SCAN (runs|r|r2)\b(?! USING INDEX runs_claim_order)/.test(p);

describe.each([
  ["a fresh file", "none"],
  ["a history after ANALYZE (statistics loaded, STAT4 samples included)", "loaded"],
  ["a history after ANALYZE, opened again (the store keeps sqlite_stat1 only)", "reopened"],
] as const)("SQLite reads after migration 10, on %s", (_name, analyzed) => {
  async function seeded(): Promise<SqliteStore> {
    const s = store();
    seed(s.db);
    if (analyzed === "none") return s;
    s.db.exec("ANALYZE");
    if (analyzed === "loaded") return s;
    const path = s.db.name;
    await open.pop()!.close();
    const again = store(path);
    expect(again.db.prepare("SELECT COUNT(*) FROM sqlite_stat4").pluck().get()).toBe(0);
    expect(again.db.prepare("SELECT COUNT(*) FROM sqlite_stat1").pluck().get()).toBeGreaterThan(0);
    return again;
  }

  it("lists and counts runs by status through the status indexes; succeeded runs newest first without a sort", async () => {
    const s = await seeded();
    const failed = await plansOf(s, () => s.listRuns({ status: "failed", limit: 20 }));
    expect(failed.join("\n")).toContain("runs_unsuccessful");
    expect(failed.some(fullScan)).toBe(false);
    const active = await plansOf(s, () => s.listRuns({ status: ["pending", "running", "waiting"], limit: 20 }));
    expect(active.join("\n")).toContain("runs_active");
    expect(active.some(fullScan)).toBe(false);
    const counted = await plansOf(s, () =>
      s.countRuns({ workflow: "wf-1", status: ["pending", "running", "waiting"] }),
    );
    expect(counted.join("\n")).toContain("runs_active");
    expect(counted.some(fullScan)).toBe(false);
    // The newest succeeded runs: the table walked backwards, stopping at the limit (no sort of all of them).
    const succeeded = await plansOf(s, () => s.listRuns({ status: "succeeded", limit: 20 }));
    expect(succeeded.join("\n")).not.toContain("TEMP B-TREE");
    // And the answers are right: newest first, merged across statuses, limited.
    const mixed = await s.listRuns({ status: ["failed", "pending", "cancelled"], limit: 25 });
    expect(mixed).toHaveLength(25);
    expect(mixed.map((r) => r.seq)).toEqual([...mixed.map((r) => r.seq)].sort((a, b) => b - a));
    expect(mixed.slice(0, 20).every((r) => r.status === "pending")).toBe(true);
    expect(mixed.slice(20).every((r) => r.status === "failed" || r.status === "cancelled")).toBe(true);
    expect(await s.countRuns({ status: ["failed", "cancelled"] })).toBe(seededWith("failed") + seededWith("cancelled"));
    expect(await s.countRuns({ status: "succeeded" })).toBe(seededWith("succeeded"));
    expect(await s.listRuns({ status: [], limit: 5 })).toEqual([]);
  });

  it("reclaims expired leases from the running runs, and retention finds old runs by finish time", async () => {
    const s = await seeded();
    const reclaim = await plansOf(s, () => s.reclaimExpired(100, () => 0));
    expect(reclaim.join("\n")).toContain("runs_active");
    expect(reclaim.some(fullScan)).toBe(false);
    expect((await s.listRuns({ status: "running" })).length).toBe(0);
    const retention = await plansOf(s, () => s.deleteFinished(NOW - 100 * DAY, 50));
    expect(retention.join("\n")).toContain("runs_finished");
    expect(retention.some(fullScan)).toBe(false);
  });

  it("reads the next due time and the queues' readiness from the claim-order index, never the history", async () => {
    const s = await seeded();
    const next = await plansOf(s, () => s.nextReadyAt(["wf-0", "wf-1"]));
    expect(next.join("\n")).toContain("runs_claim_order");
    expect(next.some(fullScan)).toBe(false);
    expect(await s.nextReadyAt(["wf-1"])).toBe(NOW - 1000);
    expect(await s.nextReadyAt(["wf-0"])).toBe(NOW + DAY + 1);
    expect(await s.nextReadyAt(["wf-3"])).toBeNull();
    const ready = await plansOf(s, () => s.readyByQueue(["wf-0", "wf-1"]));
    expect(ready.join("\n")).toContain("runs_claim_order");
    expect(ready.join("\n")).not.toContain("runs_by_workflow");
  });

  it("reads the overview and `logs --since` through runs_finished and runs_active", async () => {
    const s = await seeded();
    const overview = await plansOf(s, () =>
      s.overview({ from: NOW - DAY, bucketMs: 3_600_000, slowest: 5, approvals: 5 }),
    );
    expect(overview.join("\n")).toContain("runs_active");
    expect(overview.join("\n")).toContain("runs_finished");
    expect(overview.some(fullScan)).toBe(false);
    const logs = await plansOf(s, () => s.listLogs({ since: NOW - DAY, limit: 10 }));
    expect(logs.join("\n")).toContain("runs_active");
    expect(logs.join("\n")).toContain("runs_finished");
  });
});

describe("STAT4 samples (ANALYZE, PRAGMA optimize)", () => {
  it("are dropped when the store opens the file, and the statistics reloaded without them", async () => {
    const s = store();
    seed(s.db, 2_000);
    s.db.exec("ANALYZE");
    const path = s.db.name;
    expect(s.db.prepare("SELECT COUNT(*) FROM sqlite_stat4").pluck().get()).toBeGreaterThan(0);
    await open.pop()!.close();
    const again = store(path);
    expect(again.db.prepare("SELECT COUNT(*) FROM sqlite_stat4").pluck().get()).toBe(0);
    expect(again.db.prepare("SELECT COUNT(*) FROM sqlite_stat1").pluck().get()).toBeGreaterThan(0);
    expect(await again.nextReadyAt(["wf-1"])).toBe(NOW - 1000);
  });
});

describe("SQLite migration 10 on a database written before it", () => {
  it("replaces the status, lease and due-time indexes and keeps every run claimable, reclaimable and listed", async () => {
    const path = join(dir, `v9-${n++}.db`);
    const old = new Database(path);
    for (const m of MIGRATIONS.slice(0, 9)) old.exec(m);
    old.pragma("user_version = 9");
    seed(old, 500);
    old.close();

    const s = store(path);
    expect(s.db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    const indexes = (
      s.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    expect(indexes).toEqual(expect.arrayContaining(["runs_active", "runs_unsuccessful", "runs_claim_order"]));
    for (const gone of ["runs_by_status", "runs_leases", "runs_ready"]) expect(indexes).not.toContain(gone);

    // The runs written before the migration: listed by status, counted, found when due.
    expect(await s.countRuns({ status: "failed" })).toBe(seededWith("failed", 500));
    expect((await s.listRuns({ status: "waiting", limit: 5 })).map((r) => r.id)).toEqual([
      "parked-1999",
      "parked-1998",
      "parked-1997",
      "parked-1996",
      "parked-1995",
    ]);
    expect(await s.nextReadyAt(["wf-1"])).toBe(NOW - 1000);
    // Their expired leases are reclaimed, and the queued ones claimed in age order, then finished.
    expect((await s.reclaimExpired(100, () => 0)).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `running-${i}`).sort(),
    );
    const claimed = await s.claim({ workerId: "w", limit: 50, leaseMs: 30_000, workflows: ["wf-1", "wf-2"] });
    expect(claimed.map((c) => c.run.id)).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `queued-${i}`),
      ...Array.from({ length: 10 }, (_, i) => `running-${i}`),
    ]);
    const [first] = claimed;
    const [done] = await s.commit([
      {
        verb: "complete",
        lease: { runId: first!.run.id, token: first!.token },
        outcome: { status: "succeeded", result: "1" },
        claimed: first!.run,
      },
    ]);
    expect(done).toMatchObject({ ok: true, finished: { id: "queued-0", status: "succeeded" } });
    expect(await s.countRuns({ status: "running" })).toBe(29);
    expect(await s.deleteFinished(NOW - 100 * DAY, 10_000)).toBe(500);
  });
});
