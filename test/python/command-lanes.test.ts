/**
 * A Python `wmill.worker` program as a `sluice.json` worker command: under `sluice dev --workers
 * separate` (which runs lanes as `sluice server` does) it scales to zero — started once to learn
 * its workflows, gone after its idle window, started again (a new pid) by an enqueue, gone again;
 * under `sluice dev`'s default (in-process workers, no lanes) it keeps running as before.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { alive } from "../lanes/fixtures.js";

const HAS_PYTHON = spawnSync("python3", ["--version"], { encoding: "utf8" }).status === 0;

const WORKER = `import os, sys
from wmill.worker import register_workflow, run_worker

register_workflow("py-ping", lambda ctx, payload: ctx.step.run("pid", lambda: os.getpid()))
print(f"py-worker {os.getpid()}: serving (idle window {os.environ.get('SLUICE_EXIT_WHEN_IDLE_MS', '')!r})", flush=True)
run_worker()
print(f"py-worker {os.getpid()}: done", flush=True)
`;

async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

function started(dev: SluiceProcess): number[] {
  return [...dev.output().matchAll(/lane command:py: [^\n]*starting worker pid (\d+)/g)].map((m) => Number(m[1]));
}

describe.skipIf(!HAS_PYTHON)("sluice.json: a Python wmill.worker command", () => {
  it("sluice dev --workers separate: no Python process while idle, an enqueue starts a fresh one that exits after its idle window", async () => {
    const root = makeProject({
      "worker.py": WORKER,
      "sluice.json": JSON.stringify({ workers: [{ command: "exec python3 worker.py", group: "py" }] }),
    });
    const dev = spawnSluice(
      ["dev", ".", "--port", "0", "--no-watch", "--workers", "separate", "--lane-idle", "1s"],
      root,
    );
    try {
      await dev.waitFor(/lane command:py: worker pid \d+ exited \(idle\)/, 30_000);
      const [first] = started(dev);
      expect(dev.output()).toMatch(new RegExp(`\\[py\\] py-worker ${first}: serving \\(idle window '1000'\\)`));
      expect(dev.output()).toContain("[py] sluice worker: no run for 1 s (its idle window): exiting");
      expect(alive(first!)).toBe(false);
      const runs: number[] = [];
      for (let i = 0; i < 2; i++) {
        const enq = await cli(["enqueue", "py-ping", "{}", "--json"], root);
        expect(enq.code, enq.err).toBe(0);
        const id = JSON.parse(enq.out).id as string;
        const run = await eventually(async () => {
          const r = JSON.parse((await cli(["show", id, "--json"], root)).out);
          return r.status === "succeeded" ? r : null;
        }, 30_000);
        const pid = run.steps[0].value as number;
        runs.push(pid);
        await eventually(() => dev.output().includes(`lane command:py: worker pid ${pid} exited (idle)`), 15_000);
        expect(alive(pid)).toBe(false);
      }
      expect(new Set([first, ...runs]).size).toBe(3);
      expect(started(dev)).toEqual([first, ...runs]);
      expect(dev.output()).not.toMatch(/restarting it|not respawning/);
    } finally {
      dev.proc.kill("SIGTERM");
      expect(await dev.exited).toBe(0);
    }
  }, 90_000);

  it("sluice dev (in-process workers): the command keeps running past any idle window", async () => {
    const root = makeProject({
      "worker.py": WORKER,
      "sluice.json": JSON.stringify({ workers: [{ command: "exec python3 worker.py", group: "py" }] }),
    });
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch", "--lane-idle", "1s"], root);
    try {
      await dev.waitFor(/\[py\] py-worker (\d+): serving \(idle window ''\)/, 30_000);
      const pid = Number(/\[py\] py-worker (\d+): serving/.exec(dev.output())![1]);
      await delay(3_000);
      expect(alive(pid)).toBe(true);
      expect(dev.output()).not.toContain("lane command:py");
    } finally {
      dev.proc.kill("SIGTERM");
      expect(await dev.exited).toBe(0);
    }
  }, 60_000);
});
