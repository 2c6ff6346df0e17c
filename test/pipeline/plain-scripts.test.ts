/**
 * Plain DuckDB SQL and Bash scripts (no `-- pipeline` line) under `f/` are runnable scripts named by
 * their path, as plain TypeScript and Python scripts are, against a separate `sluice dev` (real
 * binaries, watching the files): `sluice enqueue` with `-- $n (integer)` and `name="$1"` arguments,
 * a SQL script reading a lake a `-- materialize` pipeline script wrote, at an old VERSION,
 * `taskScript`/`task_script` from TypeScript and Python workflows as code, the API's listing with
 * their parameters and source, `sluice preview`, and dev reloading a script that appears and goes.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "sluice.json": "{}",
  "f/lake/double.sql": "-- $n (integer)\nSELECT $n * 2 AS doubled;\n",
  "f/lake/greet.sh": 'name="$1"\necho "working on $name"\necho "{\\"greeting\\": \\"hello $name\\"}"\n',
  "f/sales/orders_daily.sql":
    "-- pipeline\n-- materialize ducklake://main/orders_daily append\n-- $n (integer) = 1\nSELECT range AS id FROM range($n);\n",
  "f/lake/at_version.sql":
    "-- $v (integer)\nATTACH 'ducklake://main' AS dl;\nSELECT count(*) AS n FROM dl.orders_daily AT (VERSION => $v);\n",
  "f/flows/wac.ts": `import { workflow, taskScript } from "windmill-client";
export const main = workflow(async (n: number) => {
  const rows = await taskScript("f/lake/double")({ n });
  const greeting = await taskScript("f/lake/greet")({ name: "wac" });
  return { rows, greeting };
});
`,
  "f/flows/pyflow.py": `from wmill import task_script, workflow


@workflow
async def main(n: int):
    rows = await task_script("f/lake/double")(n=n)
    return {"rows": rows}
`,
};

let root: string;
let dev: SluiceProcess;
let url: string;
beforeAll(async () => {
  root = makeProject(FILES, "sluice-plain-");
  dev = spawnSluice(["dev", ".", "--port", "0"], root, {}, { shared: true });
  await dev.waitFor(/UI: http/, 60_000);
  url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
}, 90_000);
afterAll(async () => {
  dev.proc.kill("SIGTERM");
  expect(await dev.exited).toBe(0);
});

const cli = (...args: string[]) => finished(spawnSluice(args, root));

/** `sluice enqueue <name> <payload> --wait`: its exit code, result (parsed) and stderr. */
async function run(name: string, payload: unknown): Promise<{ code: number | string; result: unknown; err: string }> {
  const r = await cli("enqueue", name, JSON.stringify(payload), "--wait", "--timeout", "60s");
  return { code: r.code, result: r.code === 0 ? JSON.parse(r.out) : undefined, err: r.err };
}

describe("plain DuckDB SQL and Bash scripts under sluice dev", { timeout: 120_000 }, () => {
  it("are loaded as scripts named by their path", () => {
    expect(dev.output()).toContain("loaded f/lake/double.sql: f/lake/double (DuckDB SQL script)");
    expect(dev.output()).toContain("loaded f/lake/greet.sh: f/lake/greet (Bash script)");
    expect(dev.output()).not.toContain("no workflow modules found");
  });

  it("run a SQL script with its `-- $n (integer)` argument, and refuse a payload without it", async () => {
    const ok = await run("f/lake/double", { n: 21 });
    expect(ok.code, ok.err).toBe(0);
    expect(ok.result).toEqual([{ doubled: 42 }]);
    const missing = await run("f/lake/double", {});
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('missing parameter "n" for f/lake/double: its parameters are n (required: n)');
    const bad = await run("f/lake/double", { n: "many" });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('argument $n (integer, line 1) must be a whole number, got "many"');
  });

  it("run a Bash script with its positional argument: output lines are logs, the last one its result", async () => {
    const r = await run("f/lake/greet", { name: "ann" });
    expect(r.code, r.err).toBe(0);
    expect(r.result).toEqual({ greeting: "hello ann" });
    await dev.waitFor(/f\/lake\/greet \S+: working on ann/);
  });

  it("read a lake a `-- materialize` pipeline script wrote, at an old VERSION", async () => {
    for (const n of [2, 3]) {
      const w = await run("f/sales/orders_daily", { n });
      expect(w.code, w.err).toBe(0);
      expect(w.result).toMatchObject({ asset: "ducklake://main/orders_daily", rows: n });
    }
    const v1 = await run("f/lake/at_version", { v: 1 });
    expect(v1.code, v1.err).toBe(0);
    expect(v1.result).toEqual([{ n: 2 }]);
    const v2 = await run("f/lake/at_version", { v: 2 });
    expect(v2.result).toEqual([{ n: 5 }]);
  });

  it("run as tasks of a TypeScript and of a Python workflow as code (taskScript / task_script)", async () => {
    const ts = await run("f/flows/wac", { n: 4 });
    expect(ts.code, ts.err).toBe(0);
    expect(ts.result).toEqual({ rows: [{ doubled: 8 }], greeting: { greeting: "hello wac" } });
    const py = await run("f/flows/pyflow", { n: 5 });
    expect(py.code, py.err).toBe(0);
    expect(py.result).toEqual({ rows: [{ doubled: 10 }] });
  });

  it("are listed by the API with their parameters and source, which the diagram view shows", async () => {
    const { workflows } = (await (await fetch(`${url}/api/workflows`)).json()) as {
      workflows: Array<{ name: string; source: string | null; params: unknown }>;
    };
    const byName = new Map(workflows.map((w) => [w.name, w]));
    expect(byName.get("f/lake/double")).toMatchObject({
      source: "f/lake/double.sql",
      params: { names: ["n"], required: ["n"] },
    });
    expect(byName.get("f/lake/greet")).toMatchObject({
      source: "f/lake/greet.sh",
      params: { names: ["name"], required: [] },
    });
    const diagram = await fetch(`${url}/api/workflows/${encodeURIComponent("f/lake/double")}/diagram`);
    expect(diagram.status).toBe(200);
    const view = (await diagram.json()) as { source: string; diagram: { nodes: Array<{ kind: string }> } };
    expect(view.source).toBe(FILES["f/lake/double.sql"]);
    expect(view.diagram.nodes.map((n) => n.kind)).toEqual(["start", "end"]);
  });

  it("run once in `sluice preview`, by file path", async () => {
    const r = await cli("preview", "f/lake/double.sql", '{"n": 6}');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("timeline of f/lake/double (succeeded)");
    expect(r.out).toMatch(/result:\n\[\n\s+\{\n\s+"doubled": 12\n\s+\}\n\]/);
    const sh = await cli("preview", "f/lake/greet.sh", '["bo"]');
    expect(sh.code, sh.err).toBe(0);
    expect(sh.out).toContain("[f/lake/greet] info working on bo");
  });

  it("appear and go with their files while sluice dev watches", async () => {
    writeFiles(root, { "f/lake/added.sql": "-- $x (text)\nSELECT upper($x) AS shout;\n" });
    await dev.waitFor(/loaded f\/lake\/added\.sql: f\/lake\/added \(DuckDB SQL script\)/, 20_000);
    const r = await run("f/lake/added", { x: "new" });
    expect(r.code, r.err).toBe(0);
    expect(r.result).toEqual([{ shout: "NEW" }]);
    writeFiles(root, { "f/lake/added.sql": "-- $x (text)\nSELECT lower($x) AS quiet;\n" });
    const changed = await eventually(async () => {
      const again = await run("f/lake/added", { x: "NEW" });
      return JSON.stringify(again.result) === '[{"quiet":"new"}]' ? again : null;
    }, 20_000);
    expect(changed.code).toBe(0);
    rmSync(join(root, "f/lake/added.sql"));
    await dev.waitFor(/removed f\/lake\/added: /, 20_000);
    const gone = await run("f/lake/added", { x: "x" });
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/"f\/lake\/added" was removed \(its file f\/lake\/added\.sql was deleted\)/);
  });
});

describe("sluice preview's message for an unknown path", { timeout: 60_000 }, () => {
  it("names a project's pipeline scripts instead of saying it has none", async () => {
    const only = makeProject({
      "sluice.json": "{}",
      "f/sales/totals.sql": "-- pipeline\n-- materialize ducklake://main/totals\nSELECT 1 AS n\n",
    });
    const r = await finished(spawnSluice(["preview", "f/sales/nope"], only));
    expect(r.code).toBe(1);
    expect(r.err).not.toContain("which has none");
    expect(r.err).toContain("f/sales/nope is not a workflow or script of");
    expect(r.err).toContain(
      "its only scripts are pipeline scripts (run them with `sluice pipeline run <folder>`): f/sales/totals",
    );
  });
});

describe("sluice pipeline run's own worker", { timeout: 90_000 }, () => {
  it("does not take a plain script's run: it runs pipeline work only, and ends with the command", async () => {
    const project = makeProject({
      "sluice.json": "{}",
      "f/sales/one.sql": "-- pipeline\nSELECT 1 AS n;\n",
      "f/lake/double.sql": "-- $n (integer)\nSELECT $n * 2 AS doubled;\n",
    });
    const inProject = (...args: string[]) => finished(spawnSluice(args, project));
    // A worker publishes the scripts, then leaves: the run enqueued next has no worker.
    const publish = await inProject("worker", "--exit-when-idle", "--idle", "100ms");
    expect(publish.code, publish.err).toBe(0);
    expect(publish.out).toMatch(/ready: .*f\/lake\/double/);
    const enq = await inProject("enqueue", "f/lake/double", '{"n": 1}', "--json");
    expect(enq.code, enq.err).toBe(0);
    const id = (JSON.parse(enq.out) as { id: string }).id;
    const plan = await inProject("pipeline", "run", "f/sales");
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toMatch(/plan \S+ succeeded/);
    const runs = await inProject("runs", "--json");
    const statuses = (JSON.parse(runs.out) as Array<{ id: string; status: string }>).find((r) => r.id === id);
    expect(statuses?.status).toBe("pending");
  });
});

describe("sluice enqueue with no process running", { timeout: 60_000 }, () => {
  it("finds a plain script no process published yet, and checks its parameters", async () => {
    const project = makeProject({ "sluice.json": "{}", "f/lake/q.sql": "-- $n (integer)\nSELECT $n AS n;\n" });
    const ok = await finished(spawnSluice(["enqueue", "f/lake/q", '{"n": 3}', "--json"], project));
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ workflow: "f/lake/q", deduplicated: false });
    const missing = await finished(spawnSluice(["enqueue", "f/lake/q", "{}"], project));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('missing parameter "n" for f/lake/q');
    const runs = await finished(spawnSluice(["runs", "--json"], project));
    expect(
      (JSON.parse(runs.out) as Array<{ workflow: string; status: string }>).map((r) => [r.workflow, r.status]),
    ).toEqual([["f/lake/q", "pending"]]);
  });
});
