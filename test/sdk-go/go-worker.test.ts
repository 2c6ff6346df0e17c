/**
 * End to end, as a user runs it: `sluice server --workers none` (tokens on), a Go worker
 * program built from sdk-go/examples/order-worker with a `worker` token, runs enqueued
 * and signalled with the CLI, and their steps read back with `sluice show --json`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { GO_ENV, HAS_GO as hasGo, SDK, SKIP_REASON } from "./go-env.js";

/** Runs a CLI command to completion. */
async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe.skipIf(!hasGo)(
  hasGo ? "Go worker SDK against a real server" : `Go worker SDK against a real server ${SKIP_REASON}`,
  () => {
    let root: string;
    let server: SluiceProcess;
    let worker: ChildProcess;
    let workerOut = "";
    let bin: string;
    let url: string;
    let workerToken: string;
    const extra: ChildProcess[] = [];

    /** Starts another Go worker process; its output is collected in `out()`. */
    function startWorker(name: string, env: Record<string, string> = {}) {
      let out = "";
      const proc = spawn(bin, [], {
        env: { ...process.env, SLUICE_URL: url, SLUICE_TOKEN: workerToken, ORDER_WORKER_NAME: name, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      extra.push(proc);
      proc.stdout!.on("data", (d) => (out += d));
      proc.stderr!.on("data", (d) => (out += d));
      return { proc, out: () => out };
    }

    beforeAll(async () => {
      root = makeProject({}, "sluice-go-");
      bin = join(tempDir("sluice-go-bin-"), "order-worker");
      mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
      const build = spawnSync("go", ["build", "-o", bin, "./examples/order-worker"], {
        cwd: SDK,
        env: { ...process.env, ...GO_ENV },
        encoding: "utf8",
      });
      expect(build.status, build.stderr).toBe(0);
      const token = await cli(["token", "create", "--scope", "worker", "--name", "go-worker"], root);
      expect(token.code, token.err).toBe(0);
      server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, {}, { shared: true });
      await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
      workerToken = token.out.trim();
      worker = spawn(bin, [], {
        env: { ...process.env, SLUICE_URL: url, SLUICE_TOKEN: workerToken },
        stdio: ["ignore", "pipe", "pipe"],
      });
      worker.stdout!.on("data", (d) => (workerOut += d));
      worker.stderr!.on("data", (d) => (workerOut += d));
      await eventually(() => /serving fulfill-order/.test(workerOut), 20_000);
      // Registered: the CLI (another process, on the database) knows the Go workflows.
      await eventually(async () => (await cli(["runs", "--json"], root)).code === 0, 20_000);
    }, 180_000);

    afterAll(async () => {
      for (const p of [worker, ...extra]) {
        if (p && p.exitCode === null && p.signalCode === null) {
          p.kill("SIGCONT");
          p.kill("SIGKILL");
        }
      }
      if (server) {
        server.proc.kill("SIGTERM");
        await server.exited;
      }
    });

    const show = async (id: string) => {
      const r = await cli(["show", id, "--json"], root);
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out);
    };

    it("runs seed 002's fulfill-order: steps, a parked sleep, waitFor + `sluice signal`, succeeded", async () => {
      const enq = await cli(["enqueue", "fulfill-order", '{"orderId":"ord_1"}', "--json"], root);
      expect(enq.code, enq.err).toBe(0);
      const id = JSON.parse(enq.out).id as string;
      expect(typeof id).toBe("string");
      const waiting = await eventually(async () => {
        const s = await show(id);
        return s.status === "waiting" && s.steps.some((st: any) => st.key === "approval:order-ord_1") ? s : null;
      }, 20_000);
      // The sleep parked the run (over the worker's 100 ms inline limit) and it came back.
      expect(waiting.steps.map((s: any) => [s.key, s.status])).toEqual([
        ["load-order", "done"],
        ["charge", "done"],
        ["cool-down", "done"],
        ["approval:order-ord_1", "pending"],
      ]);
      const sig = await cli(["signal", "approval:order-ord_1", '{"approved":true,"by":"ann"}'], root);
      expect(sig.code, sig.err).toBe(0);
      const done = await eventually(async () => {
        const s = await show(id);
        return s.status === "succeeded" ? s : null;
      }, 20_000);
      expect(done.steps.map((s: any) => s.key)).toEqual([
        "load-order",
        "charge",
        "cool-down",
        "approval:order-ord_1",
        "send-receipt",
      ]);
      const byKey = Object.fromEntries(done.steps.map((s: any) => [s.key, s]));
      expect(byKey["load-order"].value).toEqual({ id: "ord_1", total: 42 });
      expect(byKey["approval:order-ord_1"].value).toEqual({ approved: true, by: "ann" });
      // Steps ran once: the body of load-order printed once although the run was claimed three times.
      expect(workerOut.match(/loading ord_1/g)).toHaveLength(1);
      expect(workerOut.match(/charging ord_1/g)).toHaveLength(1);
      // The Go logger's line is in the run's log.
      const text = await cli(["show", id], root);
      expect(text.out).toMatch(/info\s+approved: sending the receipt for ord_1/);
    }, 60_000);

    it("the Go logger's lines reach `sluice logs --run` while the run runs, each with the time it was logged, an error's too", async () => {
      for (const fail of [false, true]) {
        const enq = await cli(["enqueue", "log-twice", JSON.stringify({ ms: 2_500, fail }), "--json"], root);
        expect(enq.code, enq.err).toBe(0);
        const id = JSON.parse(enq.out).id as string;
        const logs = async () => {
          const r = await cli(["logs", "--run", id, "--json"], root);
          expect(r.code, r.err).toBe(0);
          return r.out
            .split("\n")
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as { msg: string; ts: string });
        };
        // Mid-run: "first" is there, "second" not yet, and the run still runs.
        const mid = await eventually(async () => {
          const lines = await logs();
          return lines.some((l) => l.msg === "first") ? lines : null;
        }, 10_000);
        expect(mid.map((l) => l.msg)).toEqual(["first"]);
        expect((await show(id)).status).toBe("running");
        const done = await eventually(async () => {
          const s = await show(id);
          return s.status === (fail ? "failed" : "succeeded") ? s : null;
        }, 20_000);
        expect(done.status).toBe(fail ? "failed" : "succeeded");
        const lines = await logs();
        expect(lines.map((l) => l.msg)).toEqual(["first", "second"]);
        const gap = Date.parse(lines[1]!.ts) - Date.parse(lines[0]!.ts);
        expect(gap, JSON.stringify(lines)).toBeGreaterThanOrEqual(2_000);
      }
    }, 60_000);

    it("a handler error retries with the workflow's backoff and succeeds on attempt 2", async () => {
      const enq = await cli(["enqueue", "flaky", "{}", "--json"], root);
      expect(enq.code, enq.err).toBe(0);
      const id = JSON.parse(enq.out).id as string;
      const done = await eventually(async () => {
        const s = await show(id);
        return s.status === "succeeded" ? s : null;
      }, 20_000);
      expect(done.attempt).toBe(2);
      expect(done.steps).toEqual([expect.objectContaining({ key: "try", status: "done" })]);
      // ctx.DueAt / ctx.ClaimedAt from the claim answers: each attempt claimed once due, the
      // retry due at least its backoff (100 ms ± 20 %) after the first attempt was claimed.
      const times = [
        ...workerOut.matchAll(new RegExp(`flaky ${id} attempt (\\d) due (-?\\d+) claimed (\\d+)`, "g")),
      ].map((m) => ({ attempt: Number(m[1]), due: Number(m[2]), claimed: Number(m[3]) }));
      expect(times.map((t) => t.attempt)).toEqual([1, 2]);
      for (const t of times) {
        expect(t.due).toBeGreaterThan(Date.parse(done.createdAt) - 1000);
        expect(t.claimed).toBeGreaterThanOrEqual(t.due);
      }
      expect(times[1]!.due - times[0]!.claimed).toBeGreaterThanOrEqual(80);
    }, 40_000);

    it("SIGTERM drains the worker: it exits 0", async () => {
      worker.kill("SIGTERM");
      const code = await new Promise((r) =>
        worker.exitCode !== null ? r(worker.exitCode) : worker.on("exit", (c, s) => r(c ?? s)),
      );
      expect(code).toBe(0);
      expect(workerOut).toMatch(/order-worker: drained/);
    }, 40_000);

    it("SIGKILL during a step: another worker replays the journal and runs the step again, once", async () => {
      const a = startWorker("A", { ORDER_WORKER_LEASE_MS: "1000" });
      const id = JSON.parse((await cli(["enqueue", "slow-step", '{"ms":1500}', "--json"], root)).out).id as string;
      await eventually(() => /work started on A/.test(a.out()), 20_000);
      a.proc.kill("SIGKILL");
      const b = startWorker("B", { ORDER_WORKER_LEASE_MS: "1000" });
      const done = await eventually(async () => {
        const s = await show(id);
        return s.status === "succeeded" ? s : null;
      }, 30_000);
      expect(done.attempt).toBe(2);
      expect(done.steps.map((s: any) => [s.key, s.value])).toEqual([
        ["first", "A"],
        ["work", "B"],
      ]);
      // B replayed "first" from the journal and ran "work" once.
      expect(b.out()).not.toMatch(/first ran/);
      expect(b.out().match(/work started on B, attempt 2/g)).toHaveLength(1);
      b.proc.kill("SIGTERM");
    }, 60_000);

    it("a SIGSTOPped worker past its lease cannot write afterwards", async () => {
      const c = startWorker("C", { ORDER_WORKER_LEASE_MS: "1000" });
      const id = JSON.parse((await cli(["enqueue", "slow-step", '{"ms":2500}', "--json"], root)).out).id as string;
      await eventually(() => /work started on C/.test(c.out()), 20_000);
      c.proc.kill("SIGSTOP");
      const d = startWorker("D", { ORDER_WORKER_LEASE_MS: "1000" });
      await eventually(() => /work started on D/.test(d.out()), 20_000);
      c.proc.kill("SIGCONT");
      const done = await eventually(async () => {
        const s = await show(id);
        return s.status === "succeeded" ? s : null;
      }, 30_000);
      expect(done.steps.find((s: any) => s.key === "work").value).toBe("D");
      // C woke up, finished its step body, and its write was refused.
      await eventually(() => /work finished on C/.test(c.out()) && /lost its lease/.test(c.out()), 10_000);
      expect((await show(id)).steps.find((s: any) => s.key === "work").value).toBe("D");
      c.proc.kill("SIGTERM");
      d.proc.kill("SIGTERM");
    }, 60_000);
  },
);
