/**
 * The optional project file `sluice.json`: settings shared by every command run in
 * that project. Parsed and validated here, with errors that name the field.
 */
import { parseConfigTriggers } from "../triggers/spec.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAssetConfig } from "../assets/config.js";
import { type Retention, retentionMillis } from "../core/retention.js";
import { normalizePublicUrl } from "../core/public-url.js";
import { InvalidInputError } from "../sdk/errors.js";

/** A run `sluice dev` enqueues when it starts (a demo, a smoke test). */
interface DevEnqueue {
  workflow: string;
  payload?: unknown;
  id?: string;
}

/** Contents of `sluice.json`. */
export interface ProjectConfig {
  retention?: Retention;
  /** SQLite file, relative to the project. Default `.sluice/sluice.db`. */
  database?: string;
  dev?: { enqueue?: DevEnqueue[] };
  /** Where pipeline assets live (object store, data tables, volumes); see `assets/config.ts`. */
  assets?: unknown;
  /** Public URL of the server (behind a proxy): where resume and approval links point. */
  publicUrl?: string;
  /** Out-of-process workers (the Go SDK, …) that `sluice dev` and `sluice server` start; see `external-workers.ts`. */
  workers?: ExternalWorkerConfig[];
  /** Native trigger rows targeting any runnable (`triggers/spec.ts` `parseConfigTriggers`). */
  triggers?: unknown;
}

/** One worker command of `sluice.json` `workers`. */
export interface ExternalWorkerConfig {
  /** A shell command, run in the project folder (or `dir`), e.g. `go run ./cmd/worker`. */
  command: string;
  /** A label for its output lines (default `worker<n>`); the worker registers its own groups. */
  group?: string;
  /** Folder to run it in, relative to the project. */
  dir?: string;
  /**
   * Where a lane supervisor runs (`sluice server`, `sluice dev --workers separate`): true (the
   * default) runs the command only while its workflows have runnable work, as a lane that exits
   * after its idle window; false keeps it running for the server's lifetime, restarted when it exits.
   */
  scaleToZero?: boolean;
}

/** Reads and validates `<root>/sluice.json` (empty config when absent). */
export function loadProjectConfig(root: string): ProjectConfig {
  const file = join(root, "sluice.json");
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new InvalidInputError(`${file} is not valid JSON (${(err as Error).message})`, { code: "INVALID_CONFIG" });
  }
  return validateConfig(raw, file);
}

/** Checks a parsed config object. */
export function validateConfig(raw: unknown, file = "sluice.json"): ProjectConfig {
  const bad = (msg: string) => new InvalidInputError(`${file}: ${msg}`, { code: "INVALID_CONFIG" });
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw bad("must be a JSON object");
  const c = raw as Record<string, unknown>;
  for (const key of Object.keys(c))
    if (!["retention", "database", "dev", "assets", "publicUrl", "workers", "triggers", "$schema"].includes(key))
      throw bad(`unknown setting "${key}" (known: retention, database, dev, assets, publicUrl, workers, triggers)`);
  if (c.triggers !== undefined) {
    try {
      parseConfigTriggers(c.triggers, file);
    } catch (err) {
      throw new InvalidInputError((err as Error).message, { code: "INVALID_CONFIG" });
    }
  }
  if (c.workers !== undefined) validateWorkers(c.workers, bad);
  if (c.publicUrl !== undefined) {
    if (typeof c.publicUrl !== "string") throw bad('"publicUrl" must be a URL such as "https://sluice.example.com"');
    try {
      normalizePublicUrl(c.publicUrl, '"publicUrl"');
    } catch (err) {
      throw bad((err as Error).message);
    }
  }
  if (c.assets !== undefined) {
    try {
      resolveAssetConfig(".", c.assets);
    } catch (err) {
      throw bad((err as Error).message);
    }
  }
  if (c.retention !== undefined) {
    try {
      retentionMillis(c.retention as Retention);
    } catch (err) {
      throw bad((err as Error).message);
    }
  }
  if (c.database !== undefined && typeof c.database !== "string") throw bad('"database" must be a file path');
  if (c.dev !== undefined) {
    const dev = c.dev as Record<string, unknown>;
    if (typeof dev !== "object" || dev === null) throw bad('"dev" must be an object');
    if (dev.enqueue !== undefined) {
      if (!Array.isArray(dev.enqueue)) throw bad('"dev.enqueue" must be a list of { "workflow": ..., "payload": ... }');
      dev.enqueue.forEach((e: unknown, i: number) => {
        if (typeof e !== "object" || e === null || typeof (e as DevEnqueue).workflow !== "string")
          throw bad(`"dev.enqueue[${i}]" needs a "workflow" name`);
      });
    }
  }
  return c as ProjectConfig;
}

function validateWorkers(raw: unknown, bad: (msg: string) => Error): void {
  const example = '[{ "command": "go run ./cmd/worker", "group": "go" }]';
  if (!Array.isArray(raw)) throw bad(`"workers" must be a list such as ${example}`);
  raw.forEach((w: unknown, i: number) => {
    if (typeof w !== "object" || w === null || Array.isArray(w))
      throw bad(`"workers[${i}]" must be an object such as { "command": "go run ./cmd/worker" }`);
    const o = w as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!["command", "group", "dir", "scaleToZero"].includes(k))
        throw bad(`"workers[${i}]": unknown field "${k}" (known: command, group, dir, scaleToZero)`);
    if (typeof o.command !== "string" || o.command.trim() === "")
      throw bad(`"workers[${i}].command" must be a non-empty shell command, e.g. "go run ./cmd/worker"`);
    if (o.group !== undefined && (typeof o.group !== "string" || !/^[\w.-]{1,64}$/.test(o.group)))
      throw bad(`"workers[${i}].group" must be a short name (letters, digits, . _ -)`);
    if (o.dir !== undefined && typeof o.dir !== "string")
      throw bad(`"workers[${i}].dir" must be a folder path relative to the project`);
    if (o.scaleToZero !== undefined && typeof o.scaleToZero !== "boolean")
      throw bad(
        `"workers[${i}].scaleToZero" must be true (run it only while its workflows have runnable work, the default) or false (keep it running)`,
      );
  });
}
