/**
 * Conformance scenarios with real processes and signals, against every target
 * (targets.ts): a `sluice server --workers none` and standalone worker processes of
 * the target, driven and read back with the CLI.
 *   - a worker SIGKILLed mid-step: another worker resumes from the checkpoints; the
 *     finished step's body ran once, the interrupted one once more;
 *   - a worker SIGSTOPped past its lease: another claims the run, and the stale
 *     worker's write is refused when it wakes;
 *   - a cron-scheduled workflow (every minute) is run by the target's worker: the test
 *     waits for the next minute's tick (the engine fires one run per tick, named by it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { stopWhere } from "../helpers/sqlite-lock.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";
import { type PreparedTarget, TARGETS } from "./targets.js";

async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

const LEASE_MS = 1_000;

for (const target of TARGETS) {
  describe.skipIf(target.skip !== null)(
    target.skip
      ? `conformance with processes: ${target.name} ${target.skip}`
      : `conformance with processes: ${target.name}`,
    () => {
      let prepared: PreparedTarget;
      let root: string;
      let server: SluiceProcess;
      let url: string;
      let token: string;
      const workers: ChildProcess[] = [];

      /** Starts a standalone worker of the target named `name`; `out()` is its output so far. */
      function startWorker(name: string) {
        const cmd = prepared.worker({ root, url, token, name, leaseMs: LEASE_MS });
        const proc = spawn(cmd.command, cmd.args, {
          cwd: root,
          env: { ...process.env, ...cmd.env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        workers.push(proc);
        let out = "";
        proc.stdout!.on("data", (d) => (out += d));
        proc.stderr!.on("data", (d) => (out += d));
        return { proc, out: () => out };
      }
      const show = async (id: string) => {
        const r = await cli(["show", id, "--json"], root);
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out);
      };
      /** Enqueues once the workflow is known (an SDK's worker registers it after it starts). */
      const enqueue = (workflow: string, payload: unknown) =>
        eventually(async () => {
          const r = await cli(["enqueue", workflow, JSON.stringify(payload), "--json"], root);
          return r.code === 0 ? (JSON.parse(r.out).id as string) : null;
        }, 20_000);
      const finished = (id: string) =>
        eventually(async () => {
          const s = await show(id);
          return ["succeeded", "failed", "cancelled"].includes(s.status) ? s : null;
        }, 30_000);
      const stop = async (w: { proc: ChildProcess }) => {
        if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
        const exited = new Promise((r) => w.proc.once("exit", r));
        w.proc.kill("SIGCONT");
        w.proc.kill("SIGTERM");
        await exited;
      };

      beforeAll(async () => {
        prepared = target.prepare();
        root = makeProject(prepared.serverFiles, "sluice-confp-");
        const t = await cli(["token", "create", "--scope", "worker", "--name", "conformance"], root);
        expect(t.code, t.err).toBe(0);
        token = t.out.trim();
        server = spawnSluice(
          ["server", "--port", "0", "--workers", "none", "--scheduler-tick", "200ms"],
          root,
          {},
          { shared: true },
        );
        const api = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/;
        await server.waitFor(api, 60_000);
        url = api.exec(server.output())![1]!;
      }, 120_000);
      // A failed scenario must not leave a worker stopped (SIGSTOP) or running for the next one:
      // a stopped `sluice worker` can hold the SQLite write lock, failing every later scenario.
      afterEach(async () => {
        for (const w of workers) await stop({ proc: w });
      });
      afterAll(async () => {
        for (const w of workers) await stop({ proc: w });
        if (server) {
          server.proc.kill("SIGTERM");
          await server.exited;
        }
      });

      it("a worker SIGKILLed mid-step: another resumes from the checkpoints; the finished step ran once", async () => {
        const a = startWorker("A");
        const id = await enqueue("conf-crash", { ms: 1500 });
        await eventually(() => /conf-crash: work started on A/.test(a.out()), 20_000);
        a.proc.kill("SIGKILL");
        const b = startWorker("B");
        const done = await finished(id);
        expect(done.status).toBe("succeeded");
        expect(done.attempt).toBe(2);
        expect(done.steps.map((s: any) => [s.key, s.status, s.value])).toEqual([
          ["first", "done", "A"],
          ["work", "done", "B"],
        ]);
        // B replayed "first" from the checkpoint and ran "work" once.
        expect(a.out().match(/conf-crash: first ran/g)).toHaveLength(1);
        expect(b.out()).not.toMatch(/conf-crash: first ran/);
        expect(b.out().match(/conf-crash: work started on B, attempt 2/g)).toHaveLength(1);
        await stop(b);
      }, 90_000);

      it("a worker SIGSTOPped past its lease: another claims the run; the stale worker's write is refused", async () => {
        const c = startWorker("C");
        // A 6 s step: the check below must land while D is still in it, which under a loaded
        // machine (spawning `sluice show` can take seconds) a 3 s step did not leave room for.
        const id = await enqueue("conf-crash", { ms: 6000 });
        await eventually(() => /conf-crash: work started on C/.test(c.out()), 20_000);
        // Stopped outside a commit: the built-in worker writes the SQLite file itself, and stopped
        // inside one (a heartbeat) it would hold the write lock and block D (test/helpers/sqlite-lock.ts).
        expect(await stopWhere(c.proc, join(root, ".sluice", "sluice.db"), false)).not.toBeNull();
        const d = startWorker("D");
        // (A long-poll of C that was already waiting on the server may take the run once more
        // before D does: C cannot answer, so that costs one more lease and attempt.)
        await eventually(() => /conf-crash: work started on D, attempt \d/.test(d.out()), 20_000);
        c.proc.kill("SIGCONT");
        // C's step body ends (at once if its time passed while stopped) and it tries to checkpoint.
        await eventually(() => /conf-crash: work finished on C/.test(c.out()), 15_000);
        await delay(500);
        // D is still in its 6 s step: had C's write been taken, "work" would be C's now.
        const mid = await show(id);
        expect(mid.status).toBe("running");
        expect(mid.steps.map((s: any) => [s.key, s.value])).toEqual([["first", "C"]]);
        const done = await finished(id);
        expect(done.status).toBe("succeeded");
        expect(done.steps.map((s: any) => [s.key, s.value])).toEqual([
          ["first", "C"],
          ["work", "D"],
        ]);
        await stop(c);
        await stop(d);
      }, 90_000);

      it("a concurrency key given at enqueue is honoured at claim: runs sharing it do not overlap", async () => {
        const w = startWorker("F");
        await enqueue("conf-crash", { ms: 10 }); // the worker has registered
        const key = `conf-${target.name.replace(/\W+/g, "-")}`;
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${url}/api/runs`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ workflow: "conf-crash", payload: { ms: 400 }, concurrency: { key, limit: 1 } }),
          });
          expect(res.status).toBe(201);
          ids.push(((await res.json()) as any).run.id);
        }
        const runs = [];
        for (const id of ids) runs.push(await finished(id));
        expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
        const spans = runs
          .map((r) => [Date.parse(r.startedAt), Date.parse(r.finishedAt)] as const)
          .sort((a, b) => a[0] - b[0]);
        // Without the key the worker would run all three at once (it has free slots).
        for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
        await stop(w);
      }, 60_000);

      it("a cron-scheduled workflow is run by the target's worker", async () => {
        const e = startWorker("E");
        const since = Date.now();
        // The schedule fires every minute; a run's id names its tick. Take the first tick after
        // E started (the other workers are stopped by then), so E alone can run it.
        const run = await eventually(
          async () => {
            const r = await cli(["runs", "--workflow", "conf-cron", "--json"], root);
            if (r.code !== 0) return null;
            const runs = JSON.parse(r.out) as any[];
            return (
              runs.find((x) => x.status === "succeeded" && Date.parse(x.id.replace("cron:conf-cron:", "")) > since) ??
              null
            );
          },
          75_000,
          250,
        );
        expect(run.id).toMatch(/^cron:conf-cron:\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
        const s = await show(run.id);
        expect(s.attempt).toBe(1);
        expect(s.steps.map((x: any) => [x.key, x.status, x.value])).toEqual([["tick", "done", "E"]]);
        expect(e.out().match(/conf-cron: ran on E/g)?.length).toBeGreaterThanOrEqual(1);
        await stop(e);
      }, 120_000);
    },
  );
}
