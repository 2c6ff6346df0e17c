/**
 * A `sluice.json` worker command run as a scale-to-zero lane: the {@link LaneSpawner} that
 * `LaneSupervisor.addCommand` starts its processes with (`lanes/supervisor.ts`).
 *
 * Each process is started as the always-on command's are (`command-process.ts`), with
 * `SLUICE_EXIT_WHEN_IDLE_MS` set to the lane idle window: the Go SDK and `wmill.worker` exit 0
 * once no run has executed for that long. A command has no IPC channel, so the lane's messages
 * come from what the process asks the server's worker protocol under its worker id (the engine's
 * `workerPoll` and `claimedExternally` events): `serves` (the workflows and groups it claims)
 * and `claimed` (its first claimed run: from then on an error exit is no startup crash).
 *
 * When its process exits, what is left of its group is stopped (SIGTERM, SIGKILL after
 * {@link LEFTOVER_DRAIN_MS}), then the claims answered under its worker id are released
 * (`onExit`), and only then does `exited` resolve: the lane's next process never runs beside
 * the last one, and a released run is runnable again when the lane looks for work.
 */
import type { EngineEvents } from "../engine/events.js";
import { LineTail } from "../lanes/policy.js";
import type { LaneMessage } from "../lanes/protocol.js";
import type { LaneExit, LaneProcess, LaneSpawner } from "../lanes/spawn.js";
import { commandWorkerId, groupGone, killGroup, sleep, spawnCommand } from "./command-process.js";

/** Settings of {@link commandLaneSpawner}. */
export interface CommandLaneOptions {
  /** The `[label]` of its output lines. */
  label: string;
  /** The command line, as written in `sluice.json`. */
  command: string;
  cwd: string;
  /** Its environment (`SLUICE_URL`, a token, …); the idle window and worker id are added. */
  env: NodeJS.ProcessEnv;
  /** The lane idle window (ms): given to the process as `SLUICE_EXIT_WHEN_IDLE_MS`. */
  idleMs: number;
  /** Its index in `workers` (from 1): part of its processes' worker ids. */
  slot: number;
  /** The engine whose worker protocol the process talks to. */
  events: EngineEvents;
  write: (text: string) => void;
  /** Called once an exited process's group is gone, with its worker id (its claims are released); errors are written. */
  onExit: (workerId: string) => Promise<void>;
}

/** How long what is left of an exited process's group may drain after SIGTERM before SIGKILL. */
const LEFTOVER_DRAIN_MS = 10_000;
/** How long a SIGKILLed group may take to go before the claims are released anyway. */
const GROUP_GONE_MS = 2_000;

/** Starts processes of one worker command for its lane (see the module comment). */
export function commandLaneSpawner(o: CommandLaneOptions): LaneSpawner {
  let starts = 0;
  return {
    spawn() {
      starts++;
      const workerId = commandWorkerId(o.slot, starts);
      const tail = new LineTail(20);
      const { proc, where } = spawnCommand({
        label: o.label,
        command: o.command,
        cwd: o.cwd,
        env: { ...o.env, SLUICE_EXIT_WHEN_IDLE_MS: String(Math.max(1, Math.round(o.idleMs))) },
        workerId,
        write: o.write,
        onLine: (line, stream) => {
          if (stream === "stderr") tail.push(line);
        },
      });
      if (where !== `pid ${proc.pid}`) o.write(`[${o.label}] ${where}\n`);
      const listeners: Array<(m: LaneMessage) => void> = [];
      const tell = (m: LaneMessage) => {
        for (const l of listeners) l(m);
      };
      let served = "";
      const onPoll = (id: string, workflows: readonly string[], groups: readonly string[] | null) => {
        if (id !== workerId) return;
        const key = JSON.stringify([workflows, groups]);
        if (key === served) return;
        served = key;
        tell({ sluiceLane: "serves", workflows: [...workflows], groups: groups && [...groups] });
      };
      const onClaimed = (id: string, runs: number) => {
        if (id === workerId && runs > 0) tell({ sluiceLane: "claimed" });
      };
      o.events.on("workerPoll", onPoll);
      o.events.on("claimedExternally", onClaimed);
      // Its output is read to the end (the crash report's last stderr line) once its group is gone.
      const closed = new Promise<void>((resolve) => proc.once("close", () => resolve()));
      const exited = new Promise<LaneExit>((resolve) => {
        proc.once("error", (err) => {
          tail.push(`could not start the command: ${err.message}`);
          if (proc.pid === undefined) resolve({ code: null, signal: null, startError: err.message });
        });
        proc.once("exit", (code, signal) => resolve({ code, signal }));
      }).then(async (exit) => {
        // A program `go run` started, left behind when `go run` itself ended: it drains, then goes.
        if (killGroup(proc, "SIGTERM") && !(await groupGone(proc, LEFTOVER_DRAIN_MS))) killGroup(proc, "SIGKILL");
        await groupGone(proc, GROUP_GONE_MS);
        await Promise.race([closed, sleep(1_000)]);
        o.events.off("workerPoll", onPoll);
        o.events.off("claimedExternally", onClaimed);
        try {
          await o.onExit(workerId);
        } catch (err) {
          o.write(`[${o.label}] could not release the exited worker's claims: ${(err as Error).message}\n`);
        }
        return exit;
      });
      return {
        pid: proc.pid ?? -1,
        exited,
        onMessage: (l) => void listeners.push(l),
        drain: () => void killGroup(proc, "SIGTERM"),
        kill: () => void killGroup(proc, "SIGKILL"),
        stderrTail: () => tail.get(),
      } satisfies LaneProcess;
    },
  };
}
