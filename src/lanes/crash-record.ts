/**
 * A lane's startup crash, recorded in the store's key-value records so every process on
 * the database sees it: the enqueue path of any server or CLI refuses new runs of the
 * group with the worker's error, and the next successful claim of the group (any
 * worker's) deletes the record, which restores normal operation (seed 002, "Scale To Zero").
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
  };
}

/** Reads a group's crash record, or null when its lane is healthy. */
async function readLaneCrash(store: Store, group: string): Promise<LaneCrash | null> {
  const value = await store.kvGet(laneCrashKey(group));
  return value === null ? null : decodeLaneCrash(group, value);
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
  if (crash.startError !== undefined) return `its worker could not be started: ${crash.startError}`;
  const last = crash.stderrTail.at(-1);
  return `its worker ${describeCrashExit(crash)} before claiming any run${last ? `: ${last}` : ""}`;
}

function describeCrashExit(crash: LaneCrash): string {
  return crash.signal ? `was killed by ${crash.signal}` : `exited with code ${crash.exitCode ?? "unknown"}`;
}

/** The one-paragraph explanation of a crashed lane, with the stderr tail indented below it. */
export function describeLaneCrash(crash: LaneCrash): string {
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

/** Refuses an enqueue into `group` when its lane's crash is recorded in the store. */
export async function admitFromStore(group: string, store: Store): Promise<void> {
  const crash = await readLaneCrash(store, group);
  if (crash) throw new LaneCrashedError(crash);
}
