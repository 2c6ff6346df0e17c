/**
 * A lane's startup crash, recorded in the store's key-value records so every process on
 * the database sees it: the enqueue path of any server or CLI refuses new runs of the
 * group with the worker's error, and the next successful claim of the group (any
 * worker's) deletes the record, which restores normal operation (seed 002, "Scale To Zero").
 * A worker command's lane (`command:<label>`, `sluice.json` `workers`) is no worker group: its
 * record lists the workflows the command was seen serving, and new runs of those are refused;
 * its supervisor deletes the record when a process of the command claims a run.
 */
import { SluiceError } from "../sdk/errors.js";
import type { Store } from "../store/types.js";

/** Key prefix of lane crash records (`lane:crash:<group>`). */
const LANE_CRASH_PREFIX = "lane:crash:";

/** What a lane's worker did before it was given up on. */
export interface LaneCrash {
  /** The worker group (lane). */
  group: string;
  /** Name of the server whose lane crashed (its host name, or `--name`). */
  server: string;
  exitCode: number | null;
  signal: string | null;
  /** The last lines the worker wrote to stderr. */
  stderrTail: string[];
  /** Why no worker process could be started at all (spawning failed, its build file could not be written), else absent. */
  startError?: string;
  /** A worker command's lane: its command line (else absent). */
  command?: string;
  /** A worker command's lane: the workflows it was seen serving, whose new runs are refused (else absent). */
  workflows?: string[];
  /** When it crashed (epoch ms). */
  at: number;
}

/** The record key of a group's crash. */
export function laneCrashKey(group: string): string {
  return `${LANE_CRASH_PREFIX}${group}`;
}

/** Encodes a crash for the key-value store. */
export function encodeLaneCrash(crash: LaneCrash): string {
  return JSON.stringify(crash);
}

/**
 * Decodes a stored crash. Never throws: a value that is not a crash record (edited by
 * hand, written by another version) is read as a crash with what can be recovered, so
 * the lane stays visibly down instead of a read failing.
 */
export function decodeLaneCrash(group: string, value: string): LaneCrash {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    // keep the defaults below
  }
  const tail = Array.isArray(raw.stderrTail) ? raw.stderrTail.filter((l): l is string => typeof l === "string") : [];
  return {
    group,
    server: typeof raw.server === "string" ? raw.server : "unknown",
    exitCode: typeof raw.exitCode === "number" ? raw.exitCode : null,
    signal: typeof raw.signal === "string" ? raw.signal : null,
    stderrTail: tail,
    at: typeof raw.at === "number" ? raw.at : 0,
    ...(typeof raw.startError === "string" && { startError: raw.startError }),
    ...(typeof raw.command === "string" && { command: raw.command }),
    ...(Array.isArray(raw.workflows) && {
      workflows: raw.workflows.filter((w): w is string => typeof w === "string"),
    }),
  };
}

/** Whether `crash` refuses a new run of `workflow` in `group`: its lane is that group, or a command lane serving it. */
export function crashRefuses(crash: LaneCrash, group: string, workflow: string | undefined): boolean {
  if (crash.command !== undefined) return workflow !== undefined && (crash.workflows ?? []).includes(workflow);
  return crash.group === group;
}

/**
 * Deletes a lane's crash record if there is one (compare-and-set: a record written again
 * meanwhile stays); true when one was deleted.
 */
export async function clearLaneCrash(store: Store, lane: string): Promise<boolean> {
  const key = laneCrashKey(lane);
  const value = await store.kvGet(key);
  return value !== null && (await store.kvSwap(key, value, null));
}

/** Every recorded lane crash, by group. */
export async function listLaneCrashes(store: Store): Promise<Map<string, LaneCrash>> {
  const rows = await store.kvList(LANE_CRASH_PREFIX);
  return new Map(
    rows.map((r) => {
      const group = r.key.slice(LANE_CRASH_PREFIX.length);
      return [group, decodeLaneCrash(group, r.value)];
    }),
  );
}

/**
 * Refused: the group's worker lane crashed before its first claim, so a new run would
 * not be picked up. The message names the lane and ends with the worker's error output.
 */
export class LaneCrashedError extends SluiceError<"LANE_CRASHED"> {
  constructor(readonly crash: LaneCrash) {
    super("LANE_CRASHED", describeLaneCrash(crash));
  }
}

/** One line on why a lane is down (`GET /api/lanes`, the readiness probe): the start error, or the exit and the last stderr line. */
export function summarizeLaneCrash(crash: LaneCrash): string {
  const what = crash.command === undefined ? "worker" : "command";
  if (crash.startError !== undefined) return `its ${what} could not be started: ${crash.startError}`;
  const last = crash.stderrTail.at(-1);
  return `its ${what} ${describeCrashExit(crash)} before claiming any run${last ? `: ${last}` : ""}`;
}

function describeCrashExit(crash: LaneCrash): string {
  return crash.signal ? `was killed by ${crash.signal}` : `exited with code ${crash.exitCode ?? "unknown"}`;
}

/** The one-paragraph explanation of a crashed lane, with the stderr tail indented below it. */
export function describeLaneCrash(crash: LaneCrash): string {
  if (crash.command !== undefined) return describeCommandCrash(crash, crash.command);
  if (crash.startError !== undefined)
    return (
      `worker lane ${JSON.stringify(crash.group)} is down: its worker could not be started (server ${crash.server}): ${crash.startError}; ` +
      `new runs of group ${JSON.stringify(crash.group)} are refused. Fix the cause; the lane tries again while runs wait, and its next successful claim restores it.`
    );
  const head =
    `worker lane ${JSON.stringify(crash.group)} is down: its worker ${describeCrashExit(crash)} before claiming any run (server ${crash.server}), ` +
    `so new runs of group ${JSON.stringify(crash.group)} are refused. Fix the worker's startup error; the lane's next successful claim restores it`;
  const tail = crash.stderrTail.slice(-10);
  return tail.length
    ? `${head}. Worker stderr:\n${tail.map((l) => `  ${l}`).join("\n")}`
    : `${head} (the worker wrote nothing to stderr).`;
}

/** The explanation of a worker command lane's crash (see {@link describeLaneCrash}). */
function describeCommandCrash(crash: LaneCrash, command: string): string {
  const served = crash.workflows?.length
    ? `new runs of its workflows (${crash.workflows.join(", ")}) are refused`
    : "its workflows are not known yet (it never asked for work), so no enqueue is refused";
  const how =
    crash.startError !== undefined
      ? `could not be started: ${crash.startError}`
      : `${describeCrashExit(crash)} before claiming any run`;
  const head =
    `worker lane ${JSON.stringify(crash.group)} is down: its command ${JSON.stringify(command)} ${how} (server ${crash.server}), so ${served}. ` +
    `Fix the worker; the lane tries it again after a back-off, and its next successful claim restores it`;
  const tail = crash.startError !== undefined ? [] : crash.stderrTail.slice(-10);
  return tail.length
    ? `${head}. Worker stderr:\n${tail.map((l) => `  ${l}`).join("\n")}`
    : `${head}${crash.startError !== undefined ? "." : " (the worker wrote nothing to stderr)."}`;
}

/**
 * Refuses an enqueue of `workflow` into `group` when a crash recorded in the store covers it:
 * its group's lane, or a worker command lane that serves the workflow.
 */
export async function admitFromStore(group: string, store: Store, workflow?: string): Promise<void> {
  for (const crash of (await listLaneCrashes(store)).values())
    if (crashRefuses(crash, group, workflow)) throw new LaneCrashedError(crash);
}
