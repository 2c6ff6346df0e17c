/**
 * A worker command's lane with a scripted spawner (each process an object the test ends by
 * hand; the real processes are `test/sdk-go/scale-to-zero.test.ts`): a start made to learn
 * what the command serves holds nothing back when it exits idle, a start for work that ends
 * without a claim is held back, what a process says it serves is kept, and a crash before the
 * first claim records the command and its workflows.
 */
import { describe, expect, it } from "vitest";
import type { LaneCrash } from "./crash-record.js";
import { Lane } from "./lane.js";
import type { LaneMessage } from "./protocol.js";
import type { LaneExit, LaneProcess } from "./spawn.js";

interface FakeProcess extends LaneProcess {
  say(m: LaneMessage): void;
  end(exit: LaneExit): Promise<void>;
}

function fakeLane(command?: string) {
  const procs: FakeProcess[] = [];
  const crashes: LaneCrash[] = [];
  const log: string[] = [];
  let claimed = 0;
  let now = 1_000;
  const lane = new Lane("command:go", {
    spawner: {
      spawn() {
        const listeners: Array<(m: LaneMessage) => void> = [];
        let resolve!: (e: LaneExit) => void;
        const exited = new Promise<LaneExit>((r) => (resolve = r));
        const proc: FakeProcess = {
          pid: 100 + procs.length,
          exited,
          onMessage: (l) => void listeners.push(l),
          drain: () => resolve({ code: 0, signal: null }),
          kill: () => resolve({ code: null, signal: "SIGKILL" }),
          stderrTail: () => ["no DATABASE_URL"],
          say: (m) => listeners.forEach((l) => l(m)),
          end: async (e) => {
            resolve(e);
            await exited;
            await new Promise((r) => setImmediate(r));
          },
        };
        procs.push(proc);
        return proc;
      },
    },
    log: (t) => void log.push(t),
    now: () => now,
    crashRetryMs: 30_000,
    server: "web-1",
    onCrash: (c) => void crashes.push(c),
    onExit: () => {},
    ...(command !== undefined && { command, onClaimed: () => void claimed++ }),
  });
  return { lane, procs, crashes, log, claimed: () => claimed, advance: (ms: number) => (now += ms) };
}

describe("a worker command's lane", () => {
  it("a start to learn what the command serves: kept, and its idle exit holds nothing back", async () => {
    const t = fakeLane("go run ./cmd/worker");
    t.lane.demand(true);
    expect(t.log.join("")).toContain("learning what the command serves");
    t.procs[0]!.say({ sluiceLane: "serves", workflows: ["charge"], groups: null });
    await t.procs[0]!.end({ code: 0, signal: null });
    expect(t.lane.state.mode).toBe("idle");
    expect(t.lane.heldUntil()).toBeNull();
    expect(t.log.join("")).toContain("worker pid 100 exited (idle)");
    expect(t.lane.info()).toMatchObject({ command: "go run ./cmd/worker", workflows: ["charge"], pid: null });
    // Work right after it starts a fresh process at once.
    t.lane.demand();
    expect(t.procs).toHaveLength(2);
  });

  it("a start for work that ends without a claim holds the lane back (another server took the run?)", async () => {
    const t = fakeLane("go run ./cmd/worker");
    t.lane.demand();
    await t.procs[0]!.end({ code: 0, signal: null });
    expect(t.lane.heldUntil()).toBe(2_000);
    t.lane.demand();
    expect(t.procs).toHaveLength(1);
  });

  it("a claim makes it running (and tells the supervisor); an exit after work is idle, no crash", async () => {
    const t = fakeLane("go run ./cmd/worker");
    t.lane.demand();
    t.procs[0]!.say({ sluiceLane: "claimed" });
    expect(t.lane.state.mode).toBe("running");
    expect(t.claimed()).toBe(1);
    await t.procs[0]!.end({ code: 0, signal: null });
    expect(t.lane.state.mode).toBe("idle");
    expect(t.crashes).toEqual([]);
  });

  it("an error exit before the first claim is a crash recording the command and what it serves", async () => {
    const t = fakeLane("go run ./cmd/worker");
    t.lane.demand(true);
    t.procs[0]!.say({ sluiceLane: "serves", workflows: ["charge", "refund"], groups: ["go"] });
    await t.procs[0]!.end({ code: 0, signal: null });
    t.lane.demand();
    await t.procs[1]!.end({ code: 1, signal: null });
    expect(t.lane.state.mode).toBe("crashed");
    expect(t.crashes).toEqual([
      {
        group: "command:go",
        server: "web-1",
        exitCode: 1,
        signal: null,
        stderrTail: ["no DATABASE_URL"],
        at: 1_000,
        command: "go run ./cmd/worker",
        workflows: ["charge", "refund"],
      },
    ]);
    expect(t.log.join("")).toContain("not respawning (new runs of its workflows are refused; next try in 30 s)");
    // Held back until its retry time, then one probe.
    t.lane.demand();
    expect(t.procs).toHaveLength(2);
    t.advance(30_000);
    t.lane.demand();
    expect(t.procs).toHaveLength(3);
  });

  it("a worker group's lane (no command) records no command and calls no claim hook", async () => {
    const t = fakeLane();
    t.lane.demand();
    await t.procs[0]!.end({ code: 1, signal: null });
    expect(t.crashes[0]).not.toHaveProperty("command");
    expect(t.log.join("")).toContain("new runs of group command:go are refused; next try in 30 s if work is waiting");
    expect(t.lane.info()).toMatchObject({ command: null, workflows: null });
  });
});
