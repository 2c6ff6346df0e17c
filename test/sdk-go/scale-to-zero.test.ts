/**
 * Seed 002, "Scale To Zero", for a Go worker: `sluice server` runs a `sluice.json` worker
 * command (a small program on sdk-go, built here) as a lane. No Go process runs while nothing is
 * runnable; an enqueue, a due sleep, a signal and a released claim each start a fresh process
 * (a new pid), which exits after its idle window (`--lane-idle`) without being counted as a
 * crash (`/api/ready` stays ready, no restart). A process that exits with an error before its
 * first claim is a crash: recorded, its workflows' enqueues refused, `/api/ready` not ready, not
 * restarted until its back-off; fixed, its next claim restores it. `"scaleToZero": false` keeps
 * the command running as before. Real processes throughout: the server, the CLI, the Go worker.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiLanes } from "../../src/http/api-types.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { alive } from "../lanes/fixtures.js";
import { GO_ENV, HAS_GO, SDK, SKIP_REASON } from "./go-env.js";

/** The worker: four workflows that record the pid of the process that ran each step; `crash` in its folder makes it fail at startup. */
const WORKER = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	workflow "sluice.dev/sdk-go"
)

func pid() (any, error) { return os.Getpid(), nil }

func main() {
	if _, err := os.Stat("crash"); err == nil {
		fmt.Fprintln(os.Stderr, "lanes-worker: cannot open the orders database")
		os.Exit(1)
	}
	workflow.RegisterWorkflow("ping", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Step.Run("pid", nil, pid)
	}, workflow.WithGroup("go"))
	workflow.RegisterWorkflow("nap", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		if err := ctx.Step.Run("before", nil, pid); err != nil {
			return err
		}
		if err := ctx.Step.Sleep("nap", 3*time.Second); err != nil {
			return err
		}
		return ctx.Step.Run("after", nil, pid)
	}, workflow.WithGroup("go"))
	workflow.RegisterWorkflow("approve", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		if err := ctx.Step.Run("before", nil, pid); err != nil {
			return err
		}
		var v *struct{ OK bool }
		if err := ctx.Step.WaitFor("go-ahead", &v, time.Hour); err != nil {
			return err
		}
		return ctx.Step.Run("after", nil, pid)
	}, workflow.WithGroup("go"))
	workflow.RegisterWorkflow("slow", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Step.Run("work", nil, func() (any, error) {
			log.Printf("slow: attempt %d in pid %d", ctx.Attempt, os.Getpid())
			if ctx.Attempt == 1 {
				time.Sleep(time.Minute)
			}
			return os.Getpid(), nil
		})
	}, workflow.WithGroup("go"), workflow.WithMaxAttempts(3))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	c, err := workflow.ClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("lanes-worker %d: serving (idle window %q)", os.Getpid(), os.Getenv("SLUICE_EXIT_WHEN_IDLE_MS"))
	// Sleeps over 100 ms park the run, so the process can exit while it sleeps.
	if err := workflow.NewWorker(c, workflow.WorkerOptions{InlineSleep: 100 * time.Millisecond}).Run(ctx); err != nil {
		log.Fatal(err)
	}
	log.Printf("lanes-worker %d: done", os.Getpid())
}
`;

async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

/** A Go lane's process pids in the order the server started them (from its log). */
function started(server: SluiceProcess): number[] {
  return [...server.output().matchAll(/lane command:go: [^\n]*starting worker pid (\d+)/g)].map((m) => Number(m[1]));
}

/** Whether the server logged that lane process `pid` exited after its idle window. */
function exitedIdle(server: SluiceProcess, pid: number): boolean {
  return server.output().includes(`lane command:go: worker pid ${pid} exited (idle)`);
}

/** A server on a new project whose sluice.json runs `bin` with `entry`'s extra fields (`shared`: kept across tests); waits for its API. */
async function startServer(bin: string, args: string[], entry: Record<string, unknown> = {}, shared = false) {
  const root = makeProject(
    { "sluice.json": JSON.stringify({ workers: [{ command: `exec ${bin}`, group: "go", ...entry }] }) },
    "sluice-s2z-",
  );
  const token = await cli(["token", "create", "--scope", "read", "--name", "reader"], root);
  expect(token.code, token.err).toBe(0);
  const server = spawnSluice(["server", "--port", "0", "--lane-idle", "1s", ...args], root, {}, { shared });
  await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token.out.trim()}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { root, server, get };
}

async function stop(server: SluiceProcess): Promise<void> {
  server.proc.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}

describe.skipIf(!HAS_GO)(
  HAS_GO ? "sluice server: a Go worker command scales to zero" : `a Go worker command scales to zero ${SKIP_REASON}`,
  () => {
    let bin: string;
    beforeAll(() => {
      const app = makeProject(
        {
          "go.mod": `module example.com/lanes\n\ngo 1.19\n\nrequire sluice.dev/sdk-go v0.0.0\n\nreplace sluice.dev/sdk-go => ${SDK}\n`,
          "main.go": WORKER,
        },
        "sluice-s2z-go-",
      );
      bin = join(tempDir("sluice-s2z-bin-"), "lanes-worker");
      mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
      const build = spawnSync("go", ["build", "-o", bin, "."], {
        cwd: app,
        env: { ...process.env, ...GO_ENV },
        encoding: "utf8",
      });
      expect(build.status, build.stderr).toBe(0);
    }, 180_000);

    describe("one server, idle between runs", () => {
      let s: Awaited<ReturnType<typeof startServer>>;
      const show = async (id: string) => {
        const r = await cli(["show", id, "--json"], s.root);
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out);
      };
      const enqueue = async (workflow: string) => {
        const r = await cli(["enqueue", workflow, "{}", "--json"], s.root);
        expect(r.code, r.err).toBe(0);
        return JSON.parse(r.out).id as string;
      };
      const succeeded = (id: string) =>
        eventually(async () => {
          const run = await show(id);
          return run.status === "succeeded" ? run : null;
        }, 30_000);
      const stepValue = (run: any, key: string) => run.steps.find((st: any) => st.key === key).value as number;
      /** Every process the lane started (but `killed`) has exited after its idle window, and none is left. */
      const killed = new Set<number>();
      const allIdle = () =>
        eventually(
          () => started(s.server).every((p) => !alive(p) && (killed.has(p) || exitedIdle(s.server, p))),
          15_000,
        );

      beforeAll(async () => {
        s = await startServer(bin, [], {}, true);
      }, 60_000);
      afterAll(async () => {
        if (s) await stop(s.server);
      });

      it("starts the command once at server start to learn its workflows; it exits after its idle window and no Go process runs", async () => {
        await s.server.waitFor(/lane command:go: learning what the command serves/, 10_000);
        const [first] = started(s.server);
        await allIdle();
        expect(s.server.output()).toMatch(
          new RegExp(`\\[go\\] .*lanes-worker ${first}: serving \\(idle window "1000"\\)`),
        );
        expect(s.server.output()).toContain("[go] sluice worker: no run for 1s (its idle window): exiting");
        const lanes = (await s.get("/api/lanes")).body as ApiLanes;
        expect(lanes.lanes).toEqual([
          {
            group: "command:go",
            mode: "idle",
            pid: null,
            draining: [],
            error: null,
            command: `exec ${bin}`,
            workflows: ["ping", "nap", "approve", "slow"].sort((a, b) => a.localeCompare(b)),
          },
        ]);
        // An idle exit is no crash: ready, and the command is not restarted.
        const ready = await s.get("/api/ready");
        expect(ready.status).toBe(200);
        expect(ready.body.checks.lanes.ok).toBe(true);
        await new Promise((r) => setTimeout(r, 2_500));
        expect(started(s.server)).toEqual([first]);
        expect(s.server.output()).not.toMatch(/restarting it|not respawning|exited with code/);
      }, 60_000);

      it("an enqueue starts a fresh process that runs it and exits when idle; the next enqueue starts another", async () => {
        const before = started(s.server);
        const a = await succeeded(await enqueue("ping"));
        const pidA = stepValue(a, "pid");
        expect(started(s.server)).toEqual([...before, pidA]);
        await allIdle();
        expect(alive(pidA)).toBe(false);
        const b = await succeeded(await enqueue("ping"));
        const pidB = stepValue(b, "pid");
        expect(pidB).not.toBe(pidA);
        expect(started(s.server)).toEqual([...before, pidA, pidB]);
        await allIdle();
        expect((await s.get("/api/ready")).status).toBe(200);
      }, 60_000);

      it("a due sleep and a signal each wake a fresh process after the last one exited", async () => {
        const nap = await succeeded(await enqueue("nap"));
        const [napBefore, napAfter] = [stepValue(nap, "before"), stepValue(nap, "after")];
        // The process that parked the run exited in its 3 s sleep; the due sleep started another.
        expect(napAfter).not.toBe(napBefore);
        const out = s.server.output();
        expect(out.indexOf(`worker pid ${napBefore} exited (idle)`)).toBeLessThan(
          out.indexOf(`starting worker pid ${napAfter}`),
        );
        await allIdle();
        const id = await enqueue("approve");
        await eventually(async () => (await show(id)).status === "waiting", 30_000);
        await allIdle();
        expect(((await s.get("/api/lanes")).body as ApiLanes).lanes[0]!.mode).toBe("idle");
        const sig = await cli(["signal", "go-ahead", '{"OK": true}'], s.root);
        expect(sig.code, sig.err).toBe(0);
        const approved = await succeeded(id);
        expect(stepValue(approved, "after")).not.toBe(stepValue(approved, "before"));
        await allIdle();
      }, 90_000);

      it("a process killed mid-run has its claim released at once, and a fresh process runs the next attempt", async () => {
        const id = await enqueue("slow");
        await s.server.waitFor(/\[go\] .*slow: attempt 1 in pid (\d+)/, 30_000);
        const victim = Number(/slow: attempt 1 in pid (\d+)/.exec(s.server.output())![1]);
        killed.add(victim);
        process.kill(victim, "SIGKILL");
        const run = await succeeded(id);
        expect(run.attempt).toBe(2);
        expect(stepValue(run, "work")).not.toBe(victim);
        expect(s.server.output()).toContain(`lane command:go: worker pid ${victim} was killed by SIGKILL`);
        expect(s.server.output()).toMatch(/\[go\] the exited worker's 1 claim\(s\) were released/);
        await allIdle();
        // Killed after its first claim: no startup crash, still ready.
        expect((await s.get("/api/ready")).status).toBe(200);
      }, 60_000);
    });

    it("a process that exits 1 before its first claim is a crash: recorded, enqueues refused, not ready, not restarted; fixed, a claim restores it", async () => {
      const s = await startServer(bin, ["--lane-retry", "6s"]);
      try {
        const [first] = await eventually(() => {
          const pids = started(s.server);
          return pids.length === 1 && exitedIdle(s.server, pids[0]!) ? pids : null;
        }, 30_000);
        expect(first).toBeGreaterThan(0);
        writeFileSync(join(s.root, "crash"), "");
        const pending = await cli(["enqueue", "ping", "{}", "--json"], s.root);
        expect(pending.code, pending.err).toBe(0);
        await s.server.waitFor(
          /lane command:go: worker pid \d+ exited with code 1 before its first claim; not respawning \(new runs of its workflows are refused; next try in 6 s\)/,
          20_000,
        );
        const notReady = await eventually(async () => {
          const r = await s.get("/api/ready");
          return r.status === 503 ? r : null;
        }, 10_000);
        expect(notReady.body.checks.lanes.detail).toContain(
          "command:go (its command exited with code 1 before claiming any run: lanes-worker: cannot open the orders database)",
        );
        const lane = ((await s.get("/api/lanes")).body as ApiLanes).lanes[0]!;
        expect(lane).toMatchObject({ group: "command:go", mode: "crashed", pid: null });
        const refused = await cli(["enqueue", "ping", "{}"], s.root);
        expect(refused.code).not.toBe(0);
        expect(refused.err).toContain(
          `worker lane "command:go" is down: its command "exec ${bin}" exited with code 1 before claiming any run`,
        );
        expect(refused.err).toContain("new runs of its workflows (approve, nap, ping, slow) are refused");
        expect(refused.err).toContain("lanes-worker: cannot open the orders database");
        // Not restarted within its back-off (an always-on command restarts after 1 s).
        await new Promise((r) => setTimeout(r, 3_000));
        expect(started(s.server)).toHaveLength(2);
        rmSync(join(s.root, "crash"));
        // After the back-off the lane tries again; the run waiting since the crash is claimed.
        await eventually(
          async () =>
            JSON.parse((await cli(["show", JSON.parse(pending.out).id, "--json"], s.root)).out).status === "succeeded",
          30_000,
        );
        await s.server.waitFor(/lane command:go: claimed a run, the lane's crash record is cleared/, 10_000);
        const again = await cli(["enqueue", "ping", "{}"], s.root);
        expect(again.code, again.err).toBe(0);
        await eventually(async () => (await s.get("/api/ready")).status === 200, 10_000);
      } finally {
        await stop(s.server);
      }
    }, 120_000);

    it("a command that has not said what it serves (it exited before asking) is started by runs of workflows nothing else serves", async () => {
      // Registered by a first server; the second's command exits 0 at once until \`ready\` exists.
      const first = await startServer(bin, []);
      await eventually(
        () => started(first.server).length === 1 && exitedIdle(first.server, started(first.server)[0]!),
        30_000,
      );
      await stop(first.server);
      writeFileSync(
        join(first.root, "sluice.json"),
        JSON.stringify({ workers: [{ command: `test -f ready || exit 0; exec ${bin}`, group: "go" }] }),
      );
      const server = spawnSluice(["server", "--port", "0", "--lane-idle", "1s"], first.root);
      try {
        await server.waitFor(/lane command:go: worker pid \d+ exited \(idle\)/, 30_000);
        expect(server.output()).not.toMatch(/\[go\] .*lanes-worker \d+: serving/);
        writeFileSync(join(first.root, "ready"), "");
        const enq = await cli(["enqueue", "ping", "{}", "--json"], first.root);
        expect(enq.code, enq.err).toBe(0);
        await eventually(
          async () =>
            JSON.parse((await cli(["show", JSON.parse(enq.out).id, "--json"], first.root)).out).status === "succeeded",
          30_000,
        );
        expect(server.output()).toMatch(/lane command:go: runnable work, starting worker pid \d+/);
      } finally {
        await stop(server);
      }
    }, 120_000);

    it('"scaleToZero": false keeps the command running past the idle window, restarted as before', async () => {
      const s = await startServer(bin, [], { scaleToZero: false });
      try {
        await s.server.waitFor(/worker command \[go\]: exec \S+ \(pid (\d+)\)/, 10_000);
        const pid = Number(/worker command \[go\]: exec \S+ \(pid (\d+)\)/.exec(s.server.output())![1]);
        await s.server.waitFor(new RegExp(`lanes-worker ${pid}: serving \\(idle window ""\\)`), 20_000);
        await new Promise((r) => setTimeout(r, 3_000));
        expect(alive(pid)).toBe(true);
        expect(s.server.output()).not.toContain("lane command:go");
        expect(((await s.get("/api/lanes")).body as ApiLanes).lanes).toEqual([]);
      } finally {
        await stop(s.server);
      }
    }, 60_000);
  },
);
