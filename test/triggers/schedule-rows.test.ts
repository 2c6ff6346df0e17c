/**
 * `sluice.json` schedule rows: a cron for a script or a workflow as code (Windmill schedules them by
 * path), on a real `sluice dev` that follows the file: the row's tick runs the script, a changed
 * cron and a removed row follow, a bad cron is refused with the row named; and `sluice deploy`
 * carries the row into the release's schedules.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { runsOf } from "./project.js";

const REPORT = `export async function main() {
  return "report";
}
`;
const FLOW = `import { workflow } from "windmill-client";
export const main = workflow(async () => "flow");
`;
const config = (rows: unknown[]) => JSON.stringify({ triggers: rows }, null, 2);
const row = (target: string, cron: string) => ({
  name: `cron-${target.split("/").pop()}`,
  kind: "schedule",
  target,
  cron,
});

function schedules(root: string, db = join(root, ".sluice", "sluice.db")) {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("SELECT workflow, cron, owner FROM schedules ORDER BY workflow").all();
  } finally {
    d.close();
  }
}

function makeDue(root: string, workflow: string): void {
  const d = new Database(join(root, ".sluice", "sluice.db"));
  try {
    d.pragma("busy_timeout = 5000");
    d.prepare("UPDATE schedules SET next_at = ? WHERE workflow = ?").run(Date.now() - 1, workflow);
  } finally {
    d.close();
  }
}

describe("sluice.json schedule rows", () => {
  it("give a script and a workflow as code a cron that fires, follows edits of the file, and goes into a release", async () => {
    const root = makeProject(
      {
        "sluice.json": config([row("f/ops/report", "0 6 * * *"), row("f/ops/flow", "30 6 * * *")]),
        "f/ops/report.ts": REPORT,
        "f/ops/flow.ts": FLOW,
      },
      "sluice-schedule-rows-",
    );
    const dev = spawnSluice(["dev", ".", "--port", "0"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    expect(schedules(root)).toEqual([
      { workflow: "f/ops/flow", cron: "30 6 * * *", owner: "process" },
      { workflow: "f/ops/report", cron: "0 6 * * *", owner: "process" },
    ]);
    makeDue(root, "f/ops/report");
    const ran = await eventually(
      async () => (await runsOf(root, "f/ops/report")).find((r) => r.status === "succeeded"),
      20_000,
    );
    expect(ran.result).toBe("report");
    expect(ran.id).toMatch(/^cron:f\/ops\/report:/);

    writeFiles(root, { "sluice.json": config([row("f/ops/report", "0 7 * * *")]) });
    await dev.waitFor(/reloaded sluice\.json/, 15_000);
    await eventually(
      () =>
        JSON.stringify(schedules(root)) ===
        JSON.stringify([{ workflow: "f/ops/report", cron: "0 7 * * *", owner: "process" }]),
      10_000,
    );

    writeFiles(root, { "sluice.json": config([row("f/ops/report", "0 7 * *")]) });
    await dev.waitFor(/error: sluice\.json not reloaded, .*triggers\[0\] \(cron-report\): invalid schedule/, 15_000);
    expect(schedules(root)).toEqual([{ workflow: "f/ops/report", cron: "0 7 * * *", owner: "process" }]);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    // A deploy carries the row into the release's schedules.
    writeFiles(root, { "sluice.json": config([row("f/ops/flow", "15 5 * * *")]) });
    const db = join(tempDir("sluice-schedule-rows-db-"), "release.db");
    const deploy = spawnSluice(["deploy", "--db", db], root);
    expect(await deploy.exited, deploy.output()).toBe(0);
    expect(deploy.stdout()).toContain("+ schedule f/ops/flow");
    expect(schedules(root, db)).toEqual([{ workflow: "f/ops/flow", cron: "15 5 * * *", owner: "release" }]);
  }, 90_000);

  it("refuse a row whose target requires parameters: at reload (the running rows stay), at deploy and at start", async () => {
    const NEEDS = `export async function main(day: string, region: string, limit = 5) {
  return { day, region, limit };
}
`;
    const good = row("f/ops/report", "0 6 * * *");
    const needs = row("f/ops/needs", "0 8 * * *");
    const hook = { name: "hook", kind: "webhook", target: "f/ops/report" };
    const root = makeProject(
      { "sluice.json": config([good]), "f/ops/report.ts": REPORT, "f/ops/needs.ts": NEEDS },
      "sluice-schedule-params-",
    );
    const dev = spawnSluice(["dev", ".", "--port", "0"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    expect(schedules(root)).toEqual([{ workflow: "f/ops/report", cron: "0 6 * * *", owner: "process" }]);
    writeFiles(root, { "sluice.json": config([good, needs, hook]) });
    await dev.waitFor(
      /error: sluice\.json not reloaded, the running triggers stay as they were: sluice\.json triggers\[1\] \(cron-needs\): schedule rows fire with an empty payload, but f\/ops\/needs requires day, region;/,
      15_000,
    );
    // Nothing of the refused file was adopted: no cron for f/ops/needs, no webhook row.
    expect(schedules(root)).toEqual([{ workflow: "f/ops/report", cron: "0 6 * * *", owner: "process" }]);
    // (the running server's rows: `sluice triggers` reads the file.)
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    expect(await (await fetch(`${url}/api/triggers`)).json()).toEqual({ triggers: [], pipelineTriggers: [] });
    expect((await fetch(`${url}/api/triggers/hook/webhook`, { method: "POST", body: "{}" })).status).toBe(404);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    const db = join(tempDir("sluice-schedule-params-db-"), "release.db");
    const deploy = spawnSluice(["deploy", "--db", db], root);
    expect(await deploy.exited).toBe(1);
    expect(deploy.stderr()).toMatch(/triggers\[1\] \(cron-needs\): .*f\/ops\/needs requires day, region/);

    const again = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    expect(await again.exited).not.toBe(0);
    expect(again.stderr()).toMatch(/triggers\[1\] \(cron-needs\): .*f\/ops\/needs requires day, region/);
  }, 90_000);
});
