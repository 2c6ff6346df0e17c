/**
 * The real binary, by default (no SLUICE_PYTHON_HOST): `sluice dev`, `sluice server` and a standalone
 * `sluice worker` start the Python worker of the worker protocol themselves (no `sluice.json`
 * `workers` row), run a Python workflow with it, and end it when they stop;
 * `SLUICE_PYTHON_HOST=bridge` keeps the stdio host.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { makeProject, writeFiles } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";

const FLOW = `import asyncio
from wmill import step, task, workflow

@task
def double(n: int):
    print(f"doubling {n}")
    return n * 2

@workflow
async def main(n: int):
    base = await step("base", lambda: n + 1)
    return sum(await asyncio.gather(*(double(base + i) for i in range(3))))
`;
/** The default: whatever this test run's environment says, the CLI is asked for nothing. */
const ENV = { SLUICE_PYTHON_HOST: "" };

/** Pids of this process's Python children running `module` (none: []). */
function pythonWorkers(parent: number, module = "wmill._wac_worker"): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(parent), "-f", module], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the Python worker of the worker protocol, started by the CLI", () => {
  it("sluice dev starts it, runs the workflow on it, and stops it on SIGTERM", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-proto-dev-");
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, ENV);
    await dev.waitFor(/python: the Python workflows run on a worker of the worker protocol/, 30_000);
    // Published to the protocol, not registered in the engine: counted all the same.
    expect(dev.stdout()).toMatch(/sluice dev: 1 workflow\(s\)/);
    const enq = spawnSluice(["enqueue", "f/p/flow", '{"n": 1}', "--wait", "--json"], root);
    expect(await enq.exited, enq.stderr() + dev.output()).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: 2 * (2 + 3 + 4) });
    const [pid] = pythonWorkers(dev.pid);
    expect(pid).toBeGreaterThan(0);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    await eventually(() => !alive(pid!), 10_000);
  }, 90_000);

  it("sluice dev stopped while a Python task runs: the task gets dev's 10 s drain, as other runs do, and finishes", async () => {
    const SLOW = `import time
from wmill import task, workflow

@task
def slow():
    time.sleep(7)
    return "slow done"

@workflow
async def main():
    return await slow()
`;
    const root = makeProject({ "f/p/slow.py": SLOW }, "sluice-py-proto-drain-");
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, ENV);
    await dev.waitFor(/claiming 1 workflow\(s\) from/, 30_000);
    const enq = spawnSluice(["enqueue", "f/p/slow", "{}"], root);
    expect(await enq.exited).toBe(0);
    const runId = enq.stdout().trim();
    await delay(2_000); // the task sleeps by now
    dev.proc.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    // Its claim was not cut off after 5 s (an attempt spent, the sleep run again on the next start).
    expect(dev.output()).not.toMatch(/claim\(s\) were released/);
    const show = spawnSluice(["runs", "--json"], root);
    expect(await show.exited).toBe(0);
    const runs = JSON.parse(show.stdout()) as Array<{
      id: string;
      task: string | null;
      status: string;
      attempt: number;
    }>;
    expect(runs.find((r) => r.task === "slow")).toMatchObject({ status: "succeeded", attempt: 1 });
    expect(runs.find((r) => r.id === runId)?.status).not.toBe("failed");
  }, 90_000);

  it("sluice dev: a Python workflow file added while it runs is claimed as soon as it is loaded", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-proto-added-");
    const dev = spawnSluice(["dev", ".", "--port", "0"], root, ENV);
    await dev.waitFor(/claiming 1 workflow\(s\) from/, 30_000);
    await delay(300); // the worker's long-poll (up to 20 s) is under way with the old names
    writeFiles(root, {
      "f/p/added.py": "from wmill import workflow\n\n@workflow\nasync def main(n: int):\n    return n + 1\n",
    });
    await dev.waitFor(/claiming 2 workflow\(s\) from/, 15_000);
    const enq = spawnSluice(["enqueue", "f/p/added", '{"n": 1}', "--wait", "--timeout", "5s", "--json"], root);
    expect(await enq.exited, enq.stderr() + dev.output()).toBe(0);
    const run = JSON.parse(enq.stdout()) as { status: string; result: number; createdAt: string; startedAt: string };
    expect(run).toMatchObject({ status: "succeeded", result: 2 });
    // Claimed at once, not when the poll with the old names ends.
    expect(Date.parse(run.startedAt) - Date.parse(run.createdAt)).toBeLessThan(1_500);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("SLUICE_PYTHON_HOST=bridge keeps the stdio host: sluice dev runs the workflow without a protocol worker", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-bridge-dev-");
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, { SLUICE_PYTHON_HOST: "bridge" });
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    expect(dev.stdout()).toMatch(/sluice dev: 1 workflow\(s\)/);
    const enq = spawnSluice(["enqueue", "f/p/flow", '{"n": 1}', "--wait", "--json"], root);
    expect(await enq.exited, enq.stderr() + dev.output()).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: 2 * (2 + 3 + 4) });
    expect(pythonWorkers(dev.pid)).toEqual([]);
    expect(pythonWorkers(dev.pid, "wmill._host").length).toBeGreaterThan(0);
    expect(dev.output()).not.toMatch(/python: the Python workflows run on a worker of the worker protocol/);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("a standalone sluice worker serves it from a loopback API of its own and exits when idle", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-proto-worker-");
    const enq = spawnSluice(["enqueue", "f/p/flow", '{"n": 2}', "--id", "pw-1"], root);
    expect(await enq.exited).toBe(0);
    const worker = spawnSluice(["worker", "--exit-when-idle", "--idle", "500ms"], root, ENV);
    await worker.waitFor(/claiming 1 workflow\(s\) from http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const [pid] = pythonWorkers(worker.pid);
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(/worker \S+ ready: 1 workflow\(s\) \[f\/p\/flow\]/);
    const show = spawnSluice(["show", "pw-1", "--json"], root);
    expect(await show.exited).toBe(0);
    expect(JSON.parse(show.stdout())).toMatchObject({ status: "succeeded", result: 2 * (3 + 4 + 5) });
    if (pid) await eventually(() => !alive(pid), 10_000);
  }, 90_000);

  it("sluice server starts it too (with a worker token), and runs the workflow on it", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-proto-server-");
    const server = spawnSluice(["server", "--port", "0"], root, ENV);
    await server.waitFor(/claiming 1 workflow\(s\) from http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const enq = spawnSluice(["enqueue", "f/p/flow", '{"n": 0}', "--wait", "--json"], root);
    expect(await enq.exited, enq.stderr() + server.output()).toBe(0);
    expect(JSON.parse(enq.stdout())).toMatchObject({ status: "succeeded", result: 2 * (1 + 2 + 3) });
    const [pid] = pythonWorkers(server.pid);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    if (pid) await eventually(() => !alive(pid), 10_000);
  }, 90_000);

  it("sluice server --workers none runs no Python worker: the run waits for a sluice worker, which runs it", async () => {
    const root = makeProject({ "f/p/flow.py": FLOW }, "sluice-py-proto-none-");
    const server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, ENV);
    await server.waitFor(/server \d+ ready/, 30_000);
    const enq = spawnSluice(["enqueue", "f/p/flow", '{"n": 0}', "--id", "py-none-1"], root);
    expect(await enq.exited, enq.stderr()).toBe(0);
    // Long enough for a Python worker of the server's own to have claimed it, had one started.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(pythonWorkers(server.pid)).toEqual([]);
    expect(server.output()).not.toMatch(/python: the Python workflows run on a worker/);
    const pending = spawnSluice(["show", "py-none-1", "--json"], root);
    expect(await pending.exited, pending.stderr()).toBe(0);
    expect(JSON.parse(pending.stdout())).toMatchObject({ status: "pending" });
    const worker = spawnSluice(["worker", "--exit-when-idle", "--idle", "500ms"], root, ENV);
    expect(await worker.exited, worker.output()).toBe(0);
    const done = spawnSluice(["show", "py-none-1", "--json"], root);
    expect(await done.exited, done.stderr()).toBe(0);
    expect(JSON.parse(done.stdout())).toMatchObject({ status: "succeeded", result: 2 * (1 + 2 + 3) });
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 90_000);
});
