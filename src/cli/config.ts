/**
 * The optional project file `sluice.json`: settings shared by every command run in
 * that project. Parsed and validated here, with errors that name the field.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAssetConfig } from "../assets/config.js";
import { type Retention, retentionMillis } from "../core/retention.js";
import { normalizePublicUrl } from "../core/public-url.js";
import { InvalidInputError } from "../sdk/errors.js";

/** A run `sluice dev` enqueues when it starts (a demo, a smoke test). */
export interface DevEnqueue {
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
  for (const key of Object.keys(c)) if (!["retention", "database", "dev", "assets", "publicUrl", "$schema"].includes(key)) throw bad(`unknown setting "${key}" (known: retention, database, dev, assets, publicUrl)`);
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
        if (typeof e !== "object" || e === null || typeof (e as DevEnqueue).workflow !== "string") throw bad(`"dev.enqueue[${i}]" needs a "workflow" name`);
      });
    }
  }
  return c as ProjectConfig;
}
