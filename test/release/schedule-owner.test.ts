/**
 * Schedule ownership across a deploy, with real processes: a `sluice server --release` on a shared
 * SQLite file, an external Python worker (`wmill.worker`, standard library only) that registers a
 * cron workflow with that server, and `sluice deploy` from the deployer's folder. The deploy owns
 * the release's schedules only: removing its own cron leaves the Python worker's schedule alone, and
 * the server does not write the release's schedules back as its own.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, REPO } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { sluice, TICK } from "./fixtures.js";

const PY_WORKER = `from wmill.worker import register_workflow, run_worker


def report(ctx, _payload):
    return "report"


register_workflow("py-report", report, schedule="0 * * * *")
print("python worker: ready", flush=True)
run_worker()
`;

/** The schedules table of the shared file: workflow and owner. */
function schedules(db: string): Array<{ workflow: string; owner: string }> {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("SELECT workflow, owner FROM schedules ORDER BY workflow").all() as Array<{
      workflow: string;
      owner: string;
    }>;
  } finally {
    d.close();
  }
}

const started: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null) p.kill("SIGKILL");
});

describe("schedule ownership: a deploy replaces only the schedules it owns", () => {
  it("removing the release's cron keeps the schedule an external Python worker registered", async () => {
    const db = join(tempDir("sluice-owner-db-"), "shared.db");
    const deployer = makeProject({ "workflows/tick.ts": TICK }, "sluice-owner-deployer-");
    const machine = tempDir("sluice-owner-machine-");
    const first = await sluice(deployer, "deploy", "--db", db);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("+ schedule tick");
    expect(schedules(db)).toEqual([{ workflow: "tick", owner: "release" }]);

    const server = spawnSluice(["server", "--release", "--db", db, "--port", "0", "--workers", "none"], machine);
    await server.waitFor(/server \d+ ready/, 30_000);
    const url = /API and UI: (http:\/\/\S+)/.exec(server.output())![1]!;
    const token = await sluice(machine, "token", "create", "--db", db, "--scope", "worker", "--name", "py");
    expect(token.code, token.err).toBe(0);
    writeFileSync(join(machine, "report.py"), PY_WORKER);
    const py = spawn("python3", ["report.py"], {
      cwd: machine,
      env: {
        ...process.env,
        PYTHONPATH: join(REPO, "sdk-python"),
        SLUICE_URL: url,
        SLUICE_TOKEN: token.out.trim(),
      },
      stdio: "ignore",
    });
    started.push(py);
    await eventually(() => schedules(db).some((s) => s.workflow === "py-report"), 20_000);
    expect(schedules(db)).toEqual([
      { workflow: "py-report", owner: "process" },
      { workflow: "tick", owner: "release" },
    ]);

    rmSync(join(deployer, "workflows/tick.ts"));
    writeFileSync(
      join(deployer, "workflows/other.ts"),
      'import { defineWorkflow } from "sluice";\n\nexport const other = defineWorkflow("other", { handler: async () => 1 });\n',
    );
    const second = await sluice(deployer, "deploy", "--db", db);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain("- schedule tick");
    expect(second.out).not.toContain("py-report");
    await server.waitFor(/release 2 loaded \(was 1\)/, 15_000);
    // After the server switched (and re-published its workflows), the Python worker's schedule is still there.
    await new Promise((r) => setTimeout(r, 500));
    expect(schedules(db)).toEqual([{ workflow: "py-report", owner: "process" }]);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 90_000);
});
