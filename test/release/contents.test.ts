/**
 * What a release carries beyond TypeScript, with real processes on a shared SQLite file: a Python
 * script and a pipeline of a Python producer and a DuckDB SQL consumer, deployed as their sources
 * and run by a `sluice worker --release` in an empty folder; a cron whose expression changes
 * follows the release; `sluice pull --release n` writes an earlier release; and `--servers 2`
 * refuses a release of global workflows on a database only one machine can share.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { sluice, sluiceJson } from "./fixtures.js";

const HELLO_PY = `def main(name: str):
    return f"hello {name}"
`;
const EXTRACT_PY = `# pipeline
import json
import wmill


def main(rows: int = 3):
    wmill.write_s3_file({"s3": "poly/raw.json"}, json.dumps([{"n": i + 1} for i in range(rows)]))
    return {"rows": rows}
`;
const TOTAL_SQL = `-- pipeline
-- on s3://poly/raw.json
SELECT sum(n) AS total FROM read_json('s3://poly/raw.json');
`;
const nightly = (cron: string) => `import { defineWorkflow } from "sluice";
export const nightly = defineWorkflow("nightly", { schedule: "${cron}", handler: async () => "night" });
`;

type Run = { id: string; status: string; result: unknown; error?: unknown };

describe("a release's Python, SQL and cron, run with no project folder", () => {
  it("runs a Python script and a Python → SQL cascade; a changed cron follows; pull --release n; --servers 2 refused", async () => {
    const db = join(tempDir("sluice-contents-db-"), "shared.db");
    const deployer = makeProject(
      {
        "f/py/hello.py": HELLO_PY,
        "f/poly/extract.py": EXTRACT_PY,
        "f/poly/total.sql": TOTAL_SQL,
        "workflows/nightly.ts": nightly("0 3 * * *"),
      },
      "sluice-contents-deployer-",
    );
    const first = await sluice(deployer, "deploy", "--db", db);
    expect(first.code, first.err).toBe(0);
    for (const line of ["+ file f/py/hello.py", "+ file f/poly/total.sql", "+ schedule nightly"])
      expect(first.out).toContain(line);

    const machine = tempDir("sluice-contents-machine-");
    const worker = spawnSluice(["worker", "--release", "--db", db], machine);
    await worker.waitFor(/worker .* ready/, 60_000);
    const finished = async (workflow: string, id: string) =>
      eventually(async () => {
        const runs = await sluiceJson<Run[]>(machine, "runs", "--db", db, "--workflow", workflow, "--json");
        const run = runs.find((r) => r.id === id);
        return run && ["succeeded", "failed"].includes(run.status) ? run : null;
      }, 40_000);
    const enqueue = async (workflow: string, payload: string) =>
      (await sluiceJson<{ id: string }>(machine, "enqueue", workflow, payload, "--db", db, "--json")).id;

    const hello = await finished("f/py/hello", await enqueue("f/py/hello", '{"name": "release"}'));
    expect(hello).toMatchObject({ status: "succeeded", result: "hello release" });
    const extract = await finished("f/poly/extract", await enqueue("f/poly/extract", '{"rows": 4}'));
    expect(extract).toMatchObject({ status: "succeeded", result: { rows: 4 } });
    const total = await eventually(async () => {
      const runs = await sluiceJson<Run[]>(machine, "runs", "--db", db, "--workflow", "f/poly/total", "--json");
      return runs.find((r) => r.status === "succeeded" || r.status === "failed") ?? null;
    }, 40_000);
    expect(total.status, JSON.stringify(total.error)).toBe("succeeded");
    expect(JSON.stringify(total.result)).toContain("10"); // 1 + 2 + 3 + 4

    // The cron changes in release 2: the stored schedule follows.
    writeFiles(deployer, { "workflows/nightly.ts": nightly("0 4 * * *") });
    const second = await sluice(deployer, "deploy", "--db", db);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain("~ schedule nightly");
    const cron = () => {
      const d = new Database(db, { readonly: true });
      try {
        return d.prepare("SELECT cron, owner FROM schedules WHERE workflow = 'nightly'").get();
      } finally {
        d.close();
      }
    };
    expect(cron()).toEqual({ cron: "0 4 * * *", owner: "release" });
    await worker.waitFor(/release 2 loaded \(was 1\)/, 15_000);

    // pull --release 1 writes the earlier release's files, with its lock.
    const pulled = tempDir("sluice-contents-pull-");
    const pull = await sluice(machine, "pull", pulled, "--db", db, "--release", "1");
    expect(pull.code, pull.err).toBe(0);
    expect(readFileSync(join(pulled, "workflows/nightly.ts"), "utf8")).toBe(nightly("0 3 * * *"));
    expect(readFileSync(join(pulled, "f/poly/total.sql"), "utf8")).toBe(TOTAL_SQL);
    expect(JSON.parse(readFileSync(join(pulled, "sluice-lock.json"), "utf8")).release).toBe(1);

    // Two servers on a SQLite file cannot share global workflows: refused, nothing published.
    writeFiles(deployer, { "workflows/nightly.ts": nightly("0 5 * * *") });
    const refused = await sluice(deployer, "deploy", "--db", db, "--servers", "2");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/local: true|SLUICE_DATABASE_URL/);
    expect(cron()).toEqual({ cron: "0 4 * * *", owner: "release" });
    expect(existsSync(join(machine, "workflows"))).toBe(false);
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 150_000);
});
