/**
 * Several folder-mode `sluice server`s on one Postgres database, as real processes, each in its own
 * copy of the project folder (two machines with the same checkout). With the same project they do
 * not fight: a second server's start and a first server's restart write no schedule row (same
 * `next_at`, same `updated_at`), including the schedule of an external Python worker each server
 * starts (its start no longer drops that schedule until the worker registers again), and a due
 * tick fires once. When the folders differ, the server started last makes its folder's schedules
 * the database's and says so with a warning per schedule.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { sql, testDatabase } from "../helpers/postgres.js";
import { delay, eventually, tempDir } from "../helpers/tmp.js";

const TICK = `import { defineWorkflow } from "sluice";
export default defineWorkflow("tick", { schedule: "* * * * *", handler: async () => "tick" });
`;
const NIGHTLY = (cron: string) => `import { defineWorkflow } from "sluice";
export default defineWorkflow("nightly", { schedule: "${cron}", handler: async () => "nightly" });
`;
const PY_WORKER = `from wmill.worker import register_workflow, run_worker


def report(ctx, _payload):
    return "report"


register_workflow("py-report", report, schedule="0 * * * *")
print("python worker: ready", flush=True)
run_worker()
`;

type Row = { workflow: string; cron: string; next_at: string; updated_at: string; owner: string };
const rows = (url: string) =>
  sql<Row>(url, "SELECT workflow, cron, next_at::text, updated_at::text, owner FROM schedules ORDER BY workflow");

async function startServer(root: string, url: string): Promise<SluiceProcess> {
  const server = spawnSluice(["server", "--port", "0", "--workers", "none", "--scheduler-tick", "200ms"], root, {
    SLUICE_DATABASE_URL: url,
  });
  await server.waitFor(/server \d+ ready/, 30_000);
  return server;
}

async function stop(server: SluiceProcess): Promise<void> {
  server.proc.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}

describe("folder-mode servers on one Postgres database", () => {
  it("the same project in two folders: no schedule row rewritten on a start or restart, a tick fired once", async () => {
    const url = await testDatabase("folders");
    const a = makeProject(
      {
        "workflows/tick.ts": TICK,
        "workflows/nightly.ts": NIGHTLY("0 3 * * *"),
        "report.py": PY_WORKER,
        "sluice.json": JSON.stringify({ workers: [{ command: "python3 report.py", group: "py" }] }),
      },
      "sluice-folder-a-",
    );
    const b = join(tempDir("sluice-folder-b-"), "project");
    cpSync(a, b, { recursive: true });
    rmSync(join(b, ".sluice"), { recursive: true, force: true });

    const first = await startServer(a, url);
    await eventually(async () => (await rows(url)).length === 3, 20_000);
    // The minutely tick parked at a far tick (still one of its cron's), so that it does not fire,
    // rightly rewriting its row, while the rows are compared (it fired at a minute's turn once).
    await sql(url, "UPDATE schedules SET next_at = $1 WHERE workflow = 'tick'", [Date.parse("2100-01-01T00:00:00Z")]);
    const before = await rows(url);
    expect(before.map((r) => [r.workflow, r.owner])).toEqual([
      ["nightly", "process"],
      ["py-report", "process"],
      ["tick", "process"],
    ]);

    const second = await startServer(b, url);
    await second.waitFor(/python worker: ready/, 20_000);
    await delay(1000); // its Python worker registers with it
    expect(await rows(url)).toEqual(before);
    expect(second.output()).not.toContain("warning: schedule");

    await stop(first);
    const again = await startServer(a, url);
    await again.waitFor(/python worker: ready/, 20_000);
    await delay(1000);
    expect(await rows(url)).toEqual(before);

    // A due tick: one run, whichever server leads.
    const at = Date.parse("2026-01-01T00:00:00Z");
    await sql(url, "UPDATE schedules SET next_at = $1 WHERE workflow = 'tick'", [at]);
    const id = `cron:tick:${new Date(at).toISOString()}`;
    await eventually(async () => (await sql(url, "SELECT id FROM runs WHERE id = $1", [id])).length === 1, 20_000);
    await delay(1000);
    expect((await sql(url, "SELECT id FROM runs WHERE workflow = 'tick' AND id = $1", [id])).length).toBe(1);
    await Promise.all([stop(second), stop(again)]);
  }, 120_000);

  it("folders that differ: the server started last replaces the schedules and warns for each", async () => {
    const url = await testDatabase("folders2");
    const a = makeProject({ "workflows/tick.ts": TICK, "workflows/nightly.ts": NIGHTLY("0 3 * * *") }, "sluice-fa-");
    const b = makeProject({ "workflows/nightly.ts": NIGHTLY("0 4 * * *") }, "sluice-fb-");
    const first = await startServer(a, url);
    expect(first.output()).not.toContain("warning: schedule");
    expect((await rows(url)).map((r) => [r.workflow, r.cron])).toEqual([
      ["nightly", "0 3 * * *"],
      ["tick", "* * * * *"],
    ]);

    const second = await startServer(b, url);
    expect(second.output()).toContain(
      "warning: schedule nightly changed from 0 3 * * * to 0 4 * * * by this folder's code\n",
    );
    expect(second.output()).toContain(
      "warning: schedule tick (* * * * *) removed: no module of this folder defines it\n",
    );
    expect(second.output()).toMatch(/the last one started replaces the others' schedules: .*sluice deploy.*--release/);
    expect((await rows(url)).map((r) => [r.workflow, r.cron])).toEqual([["nightly", "0 4 * * *"]]);

    // The same folder edited and restarted says what changed, as any folder server does.
    await stop(second);
    writeFiles(b, { "workflows/nightly.ts": NIGHTLY("0 5 * * *") });
    const edited = await startServer(b, url);
    expect(edited.output()).toContain("warning: schedule nightly changed from 0 4 * * * to 0 5 * * *");
    await Promise.all([stop(first), stop(edited)]);
  }, 120_000);
});
