/**
 * Staging folders of writers that are gone (I/O around one pure rule). A write to an `s3://`
 * lake stages its files in a local folder (`file-staging.ts`) that it removes when it ends; a
 * writer killed mid-write (SIGKILL, OOM, power loss) leaves it behind. Each staging folder
 * therefore names its owner in a marker file: the process id and the process's start time
 * (`/proc/<pid>/stat` field 22, so a pid reused by a later process is not taken for the
 * writer). {@link sweepStaleStaging} removes the folders whose owner is gone; it runs before
 * every new staging folder is made, so the next write to any lake on the machine cleans up.
 * A live writer's folder is never touched: its pid answers and its start time matches.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Name prefix of staging folders. */
const STAGE_PREFIX = "sluice-lake-stage-";
/** The marker naming a staging folder's writer. */
const OWNER_FILE = ".sluice-writer.json";
/** A folder without a readable marker (made by an older Sluice, or between mkdtemp and the marker) is removed after this. */
const UNMARKED_GRACE_MS = 60 * 60 * 1000;

/** The writer a staging folder belongs to. */
export interface StagingOwner {
  readonly pid: number;
  /** The process's start time in clock ticks after boot, or null where `/proc` is not available. */
  readonly started: string | null;
}

/** What is known of the marker's process now (pure input of {@link ownerGone}). */
export interface ProcessProbe {
  /** A process with the pid exists (signal 0 delivered, or refused with EPERM). */
  readonly alive: boolean;
  /** Its start time, or null when it cannot be read. */
  readonly started: string | null;
}

/**
 * Whether a staging folder's writer is gone (pure): no process has its pid, or one has it but
 * started at another time (the pid was reused). Unknown start times count as the same process.
 */
export function ownerGone(owner: StagingOwner, now: ProcessProbe): boolean {
  if (!now.alive) return true;
  return owner.started !== null && now.started !== null && owner.started !== now.started;
}

/** Fields 3… of `/proc/<pid>/stat` (after the parenthesised name, which may hold spaces), or null without `/proc`. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** A process's start time (field 22), or null. */
const startTimeOf = (pid: number): string | null => statFields(pid)?.[19] ?? null;

function probe(pid: number): ProcessProbe {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return { alive: false, started: null };
  }
  const fields = statFields(pid);
  // a zombie (killed, not yet reaped by its parent) answers signal 0 but writes nothing more
  if (fields?.[0] === "Z") return { alive: false, started: null };
  return { alive: true, started: fields?.[19] ?? null };
}

function readOwner(dir: string): StagingOwner | undefined {
  try {
    const v = JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")) as Partial<StagingOwner>;
    return typeof v.pid === "number"
      ? { pid: v.pid, started: typeof v.started === "string" ? v.started : null }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remove the staging folders under `parent` (default: the OS temporary folder) whose writer is
 * gone, and unmarked ones older than an hour; returns the removed folders. Never throws: a
 * folder it cannot inspect or remove is left for the next sweep.
 */
export function sweepStaleStaging(parent = tmpdir(), now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => n.startsWith(STAGE_PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const owner = readOwner(dir);
      const stale = owner ? ownerGone(owner, probe(owner.pid)) : now - statSync(dir).mtimeMs > UNMARKED_GRACE_MS;
      if (!stale) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // removed meanwhile by its writer or another sweep, or not ours to remove: next time
    }
  }
  return removed;
}

/** A new staging folder under `parent` (default: the OS temporary folder) marked as this process's, after sweeping stale ones. */
export function makeStagingDir(parent = tmpdir()): string {
  sweepStaleStaging(parent);
  const dir = mkdtempSync(join(parent, STAGE_PREFIX));
  const owner: StagingOwner = { pid: process.pid, started: startTimeOf(process.pid) };
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify(owner));
  return dir;
}
