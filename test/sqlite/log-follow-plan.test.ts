/**
 * `sluice logs --follow` on SQLite reads each poll's lines as a range of the log's primary key
 * (or of `logs_by_run` for one run), bounded by the log's end (`Store.lastLogSeq`): the plans
 * SQLite chooses for the statements the store really prepares, on a fresh file, after `ANALYZE`
 * and reopened. With a workflow SQLite used to start from `runs_by_workflow`, read every line
 * of every run of the workflow and sort them, at each poll.
 */
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import type { LogFilter } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const open: SqliteStore[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function store(path = join(dir, `follow-${n++}.db`)): SqliteStore {
  const s = openSqliteStore({ path });
  open.push(s);
  return s;
}

const RUNS = 5_000;
const LINES_PER_RUN = 10;

/** Runs of five workflows with ten lines each (direct SQL): `wf-i` has runs `r-j` with j % 5 = i. */
function seed(db: Database.Database): void {
  const now = Date.now();
  const run = db.prepare(
    `INSERT INTO runs (id, workflow, queue, status, max_attempts, backoff_base, backoff_max, claims, root_id,
       created_at, started_at, finished_at, updated_at)
     VALUES (?, ?, 'default', 'succeeded', 1, 1000, 60000, 1, ?, ?, ?, ?, ?)`,
  );
  const line = db.prepare("INSERT INTO logs (run_id, attempt, level, message, ts) VALUES (?, 1, 'info', ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      run.run(`r-${i}`, `wf-${i % 5}`, `r-${i}`, now, now, now, now);
      for (let k = 0; k < LINES_PER_RUN; k++) line.run(`r-${i}`, `line ${k} of r-${i}`, now);
    }
  })();
}

/** The plans of the statements on `logs` that `work` makes the store prepare, each as one line. */
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
  return texts
    .filter((t) => /\blogs\b/.test(t))
    .map((t) => {
      const rows = s.db
        .prepare(`EXPLAIN QUERY PLAN ${t}`)
        .all(...Array<number>((t.match(/\?/g) ?? []).length).fill(1)) as Array<{ detail: string }>;
      return rows.map((r) => r.detail).join(" | ");
    });
}

describe.each([
  ["a fresh file", "none"],
  ["a history after ANALYZE", "loaded"],
  ["a history after ANALYZE, opened again", "reopened"],
] as const)("sluice logs --follow's reads on SQLite, on %s", (_name, analyzed) => {
  async function seeded(): Promise<SqliteStore> {
    const s = store();
    seed(s.db);
    if (analyzed === "none") return s;
    s.db.exec("ANALYZE");
    if (analyzed === "loaded") return s;
    const path = s.db.name;
    await open.pop()!.close();
    return store(path);
  }

  it("read a short range of the log's primary key whatever the filter, and find the right lines", async () => {
    const s = await seeded();
    const head = await s.lastLogSeq();
    expect(head).toBe(RUNS * LINES_PER_RUN);
    const poll = (f: Partial<LogFilter>) => s.listLogs({ afterSeq: head - 50, upToSeq: head, limit: 1000, ...f });

    // (The store prepares each statement once: one filter of each shape.)
    for (const f of [{}, { workflow: "wf-3" }]) {
      const [plan, ...more] = await plansOf(s, () => poll(f));
      expect(more).toEqual([]);
      // The log is the outer loop, read by its key from afterSeq to upToSeq; each line's run by its id.
      expect(plan).toMatch(
        /^SEARCH l USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\) \| SEARCH r USING INDEX sqlite_autoindex_runs_1 \(id=\?\)$/,
      );
    }
    const [one] = await plansOf(s, () => poll({ runId: `r-${RUNS - 1}` }));
    expect(one).toMatch(/^SEARCH l USING INDEX logs_by_run \(run_id=\? AND seq>\? AND seq<\?\)/);
    expect(one).not.toContain("TEMP B-TREE");

    // The answers: the last five runs' lines (r-4995 … r-4999), oldest first.
    const all = await poll({});
    expect(all).toHaveLength(50);
    expect(all.map((l) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => head - 49 + i));
    const wf3 = await poll({ workflow: "wf-3" });
    expect(wf3.map((l) => l.message)).toEqual(Array.from({ length: 10 }, (_, k) => `line ${k} of r-4998`));
    expect(wf3.every((l) => l.workflow === "wf-3")).toBe(true);
    expect(await poll({ workflow: "nosuch" })).toEqual([]);
    expect((await poll({ runId: "r-4999", afterSeq: head - 3 })).map((l) => l.message)).toEqual([
      "line 7 of r-4999",
      "line 8 of r-4999",
      "line 9 of r-4999",
    ]);
  });
});
