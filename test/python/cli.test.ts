/**
 * Python workflows as users run them: the real `sluice` binary, a separate `sluice dev`
 * that starts its Python side itself, `sluice enqueue … --wait`, load errors with file
 * and line, a missing python3, and a SIGKILL of the Python process mid fan-out.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { PYTHON_ON_PROTOCOL } from "../helpers/python-protocol.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";

const ETL = `from wmill import task, workflow

@task
async def extract(url: str):
    print(f"extracting {url}")
    return [1, 2, 3]

@task
def load(rows: list):
    print(f"loading {len(rows)}")
    return len(rows)

@workflow
async def main(url: str, limit: int = 10):
    print("etl starts")
    rows = await extract(url)
    n = await load(rows[:limit])
    print("etl done")
    return {"n": n}
`;

const FILES = {
  "f/data/etl.py": ETL,
  "f/data/broken.py": "from wmill import workflow\n\n@workflow\nasync def main(:\n    return 1\n",
  "f/data/bad_import.py": "import not_a_module_here\n\ndef main():\n    return 1\n",
  "f/ts/hello.ts": "export function main(name: string) { return `hello ${name}`; }\n",
};

async function startDev(root: string, env: Record<string, string> = {}) {
  const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, env);
  await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
  return dev;
}

describe("Python workflows through the CLI", () => {
  it("sluice enqueue f/data/etl --wait runs on a separate sluice dev; load errors name file and line", async () => {
    const root = makeProject(FILES, "sluice-py-cli-");
    const dev = await startDev(root);
    expect(dev.output()).toMatch(/f\/data\/broken\.py:4: SyntaxError: invalid syntax \(its workflows are not loaded\)/);
    expect(dev.output()).toMatch(/f\/data\/bad_import\.py:1: ModuleNotFoundError: No module named 'not_a_module_here'/);
    expect(dev.output()).toMatch(/loaded f\/data\/etl\.py: f\/data\/etl/);
    expect(dev.output()).toMatch(/loaded f\/ts\/hello\.ts: f\/ts\/hello/);

    const enq = spawnSluice(
      ["enqueue", "f/data/etl", '{"url": "https://example.com/x", "limit": 2}', "--id", "etl-1", "--wait", "--json"],
      root,
    );
    expect(await enq.exited).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ id: "etl-1", status: "succeeded", result: { n: 2 } });

    const show = spawnSluice(["show", "etl-1", "--json"], root);
    expect(await show.exited).toBe(0);
    const shown = JSON.parse(show.stdout());
    expect(shown.logs.map((l: { message: string; task: string | null }) => [l.task, l.message])).toEqual([
      [null, "etl starts"],
      ["extract", "extracting https://example.com/x"],
      ["load", "loading 2"],
      [null, "etl done"],
    ]);

    const bad = spawnSluice(["enqueue", "f/data/etl", '{"uri": "typo"}'], root);
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toBe('sluice: unknown parameter "uri" for f/data/etl: its parameters are url, limit\n');
    const missing = spawnSluice(["enqueue", "f/data/etl", "{}"], root);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toMatch(/missing parameter "url" for f\/data\/etl/);
    // An argument of the wrong JSON type for its hint is refused at enqueue, before a run exists.
    const typed = spawnSluice(["enqueue", "f/data/etl", '{"url": "u", "limit": "two"}', "--wait"], root);
    expect(await typed.exited).toBe(1);
    expect(typed.stderr()).toBe(
      'sluice: parameter "limit" of f/data/etl is int, so it takes a whole number: got "two" (a string)\n',
    );
    const api = dev.output().match(/UI: (http:\/\/127\.0\.0\.1:\d+)/)![1];
    const posted = await fetch(`${api}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workflow: "f/data/etl", payload: { url: 7 } }),
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toMatch(/parameter \\"url\\" of f\/data\/etl is str, so it takes a string: got 7/);
    const runs = spawnSluice(["runs", "--json"], root);
    expect(await runs.exited).toBe(0);
    expect((JSON.parse(runs.stdout()) as unknown[]).length).toBe(3); // etl-1 and its two tasks: nothing more
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("sluice dev reloads a changed Python file: new parameters at once, a syntax error named with its line", async () => {
    const root = makeProject({ "f/data/etl.py": ETL }, "sluice-py-reload-");
    const dev = spawnSluice(["dev", ".", "--port", "0"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    // The watcher starts after the UI line: write until the reload is seen.
    const edit = (text: string, seen: RegExp) =>
      eventually(async () => {
        writeFileSync(join(root, "f/data/etl.py"), text);
        await delay(700);
        return seen.test(dev.output());
      }, 30_000);
    await edit(
      ETL.replace("limit: int = 10", "limit: int = 10, dry: bool = False"),
      /reloaded Python workflows after f\/data\/etl\.py changed/,
    );
    const enq = spawnSluice(["enqueue", "f/data/etl", '{"url": "u", "dry": true}', "--wait", "--json"], root);
    expect(await enq.exited).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: { n: 3 } });
    await edit(
      ETL.replace("async def main(url: str", "async def main(url: str,,"),
      /f\/data\/etl\.py:\d+: SyntaxError/,
    );
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("with --workers separate, the lane worker started on demand runs Python workflows too", async () => {
    const root = makeProject({ "f/data/etl.py": ETL }, "sluice-py-lanes-");
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch", "--workers", "separate"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const enq = spawnSluice(["enqueue", "f/data/etl", '{"url": "u"}', "--wait", "--json"], root);
    expect(await enq.exited).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: { n: 3 } });
    // On the worker protocol the dev server's Python worker runs them, not the lane.
    if (!PYTHON_ON_PROTOCOL) expect(dev.output()).toMatch(/\[lane default\] .*f\/data\/etl:extract/);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("sluice worker starts the Python side itself: enqueue (no server), then a worker that exits when idle", async () => {
    const root = makeProject({ "f/data/etl.py": ETL }, "sluice-py-worker-");
    const enq = spawnSluice(["enqueue", "f/data/etl", '{"url": "u"}', "--id", "w-1"], root);
    expect(await enq.exited).toBe(0);
    const worker = spawnSluice(["worker", "--exit-when-idle", "--idle", "500ms"], root);
    expect(await worker.exited).toBe(0);
    const show = spawnSluice(["show", "w-1", "--json"], root);
    expect(await show.exited).toBe(0);
    expect(JSON.parse(show.stdout())).toMatchObject({ status: "succeeded", result: { n: 3 } });
  }, 60_000);

  it("without python3 the Python files are reported once and the TypeScript workflows still run", async () => {
    const root = makeProject(FILES, "sluice-py-none-");
    const dev = await startDev(root, { SLUICE_PYTHON: "/nonexistent/python3" });
    const said = dev.output().match(/\/nonexistent\/python3 could not be started/g) ?? [];
    expect(said).toHaveLength(1);
    expect(dev.output()).toMatch(/3 Python file\(s\) not loaded.*install python3/);
    const enq = spawnSluice(["enqueue", "f/ts/hello", '{"name": "ada"}', "--wait", "--json"], root);
    expect(await enq.exited).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: "hello ada" });
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("SIGKILL of the Python process during a fan-out of 200 tasks: finished tasks are not repeated, the parent finishes", async () => {
    const root = makeProject(
      {
        "f/fan/out.py": `import asyncio, os
from wmill import task, workflow

@task
async def work(i: int):
    await asyncio.sleep(0.05)
    with open(os.path.join(os.environ["EFFECTS_DIR"], "effects.txt"), "a") as f:
        f.write(f"{i}\\n")
    await asyncio.sleep(0.05)
    return i * 2

@workflow
async def main(n: int):
    return sum(await asyncio.gather(*(work(i) for i in range(n))))
`,
      },
      "sluice-py-kill-",
    );
    const dev = await startDev(root, { EFFECTS_DIR: root });
    const enq = spawnSluice(["enqueue", "f/fan/out", '{"n": 200}', "--id", "fan-1"], root);
    expect(await enq.exited).toBe(0);
    const effects = () => {
      try {
        return readFileSync(join(root, "effects.txt"), "utf8").split("\n").filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    await eventually(() => effects().length >= 20, 30_000);
    // The Python process is a child of this test's sluice dev: find it by its parent pid.
    const pid = Number(
      execFileSync("pgrep", ["-P", String(dev.pid), "-f", PYTHON_ON_PROTOCOL ? "wmill._wac_worker" : "wmill._host"], {
        encoding: "utf8",
      }).trim(),
    );
    expect(pid).toBeGreaterThan(0);
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      await eventually(async () => (await store.getRun("fan-1"))?.status === "succeeded", 60_000);
      // Leases are 30 s: the interrupted tasks ran again at once (the bridge retries them, the
      // protocol host's supervisor releases the dead worker's claims), not once their leases expired.
      expect(Date.now() - killedAt).toBeLessThan(25_000);
      expect(JSON.parse((await store.getRun("fan-1"))!.result!)).toBe(2 * ((199 * 200) / 2));
      const kids = await store.listRuns({ parentId: "fan-1", limit: 1000 });
      expect(kids).toHaveLength(200);
      expect(kids.every((k) => k.status === "succeeded")).toBe(true);
      // Each task's effect happened once per attempt that ran its body: once for every task
      // that finished before the kill, again only for those the kill interrupted (retried).
      const counts = new Map<number, number>();
      for (const i of effects()) counts.set(i, (counts.get(i) ?? 0) + 1);
      expect(counts.size).toBe(200);
      const retried = kids.filter((k) => k.attempt > 1);
      expect(retried.length).toBeGreaterThan(0);
      for (const k of kids) {
        const i = (JSON.parse(k.payload!) as number[])[0]!;
        expect(counts.get(i)!).toBeLessThanOrEqual(k.attempt);
      }
      const once = [...counts.values()].filter((c) => c === 1).length;
      expect(once).toBeGreaterThanOrEqual(200 - retried.length);
      expect(dev.output()).toMatch(
        PYTHON_ON_PROTOCOL
          ? /\[python\] the exited Python worker's \d+ claim\(s\) were released: \d+ run\(s\) get another attempt now[^]*\[python\] the Python worker exited \(killed by SIGKILL\); starting it again in \d+ ms/
          : /\[python\] the Python process exited \(killed by SIGKILL\); \d+ run\(s\) it was running are retried/,
      );
      // The released tasks' attempts say their worker process exited, not that their leases expired.
      if (PYTHON_ON_PROTOCOL) {
        expect(dev.output()).toMatch(
          /↻ f\/fan\/out:work \S+ attempt 1 failed \(attempt 1 was ended when its worker process exited \(its claim was released, not left to expire\)\); retry 2\//,
        );
        expect(dev.output()).not.toMatch(/stopped heartbeating|lease expired/);
      }
    } finally {
      await store.close();
    }
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 120_000);
});
