/**
 * Native trigger rows of a pipeline folder, from `<folder>/pipeline.json`:
 *
 * ```json
 * { "triggers": { "ingest": { "schedule": { "cron": "0 6 * * *", "timezone": "UTC" }, "webhook": true } } }
 * ```
 *
 * Keys are script names (file name without extension) or project-relative paths. A
 * `// on <kind>` marker opts the script into the trigger; the row holds its options, as
 * in the seed (the cron is not part of the annotation).
 */
import { type CronSchedule, parseSchedule } from "../../core/cron.js";
import type { Diagnostic } from "../diagnostics.js";
import { NATIVE_TRIGGER_KINDS } from "../annotation-types.js";
import { type ConsumedKind, isConsumedKind } from "../../triggers/kinds.js";
import { parsePipelineRow, type TriggerSpec } from "../../triggers/spec.js";

/** The configured triggers of one script. */
export interface ScriptTriggers {
  readonly schedule?: CronSchedule;
  readonly webhook?: boolean;
  /** Rows of consumed kinds (MQTT, NATS, …), checked; `triggers/spec.ts` turns them into trigger specs. */
  readonly consumed?: Readonly<Partial<Record<ConsumedKind, unknown>>>;
}

/** The parsed trigger file of a folder: script key → triggers, plus problems. */
export interface TriggersFile {
  readonly byScript: ReadonlyMap<string, ScriptTriggers>;
  /** `"depthCap"`: hops a cascade chain of this folder may take (default {@link DEFAULT_DEPTH_CAP}). */
  readonly depthCap?: number;
  readonly diagnostics: readonly Diagnostic[];
}

/** Hops a cascade chain may take unless `pipeline.json` sets `"depthCap"` (the seed's cap). */
export const DEFAULT_DEPTH_CAP = 5;
/** The largest `"depthCap"` accepted. */
const MAX_DEPTH_CAP = 100;

/** The name of the per-folder trigger file. */
export const TRIGGERS_FILE = "pipeline.json";

/**
 * Parse a `pipeline.json`. Problems are diagnostics on `file` (line 0): a malformed file or
 * an invalid cron is an error, an unknown key a warning.
 */
export function parseTriggersFile(text: string | undefined, file: string): TriggersFile {
  const byScript = new Map<string, ScriptTriggers>();
  const diagnostics: Diagnostic[] = [];
  const error = (code: string, message: string) =>
    diagnostics.push({ severity: "error", line: 0, code, message, script: file });
  const warn = (code: string, message: string) =>
    diagnostics.push({ severity: "warning", line: 0, code, message, script: file });
  if (text === undefined) return { byScript, diagnostics };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    error(
      "TRIGGERS_FILE_INVALID",
      `${file} is not valid JSON (${(err as Error).message}); expected {"triggers": {"<script>": {"schedule": {"cron": "0 6 * * *"}}}}`,
    );
    return { byScript, diagnostics };
  }
  const triggers = (raw as { triggers?: unknown } | null)?.triggers;
  if (
    typeof raw !== "object" ||
    raw === null ||
    (triggers !== undefined && (typeof triggers !== "object" || triggers === null))
  ) {
    error("TRIGGERS_FILE_INVALID", `${file} must be an object with a "triggers" object keyed by script name`);
    return { byScript, diagnostics };
  }
  for (const key of Object.keys(raw))
    if (key !== "triggers" && key !== "$schema" && key !== "depthCap")
      warn(
        "TRIGGERS_FILE_UNKNOWN_KEY",
        `unknown key ${JSON.stringify(key)} in ${file} is ignored (known: triggers, depthCap)`,
      );
  let depthCap: number | undefined;
  const rawCap = (raw as { depthCap?: unknown }).depthCap;
  if (rawCap !== undefined) {
    if (typeof rawCap === "number" && Number.isInteger(rawCap) && rawCap >= 1 && rawCap <= MAX_DEPTH_CAP)
      depthCap = rawCap;
    else
      error(
        "DEPTH_CAP_INVALID",
        `depthCap in ${file} must be a whole number from 1 to ${MAX_DEPTH_CAP} (hops a cascade chain may take), got ${JSON.stringify(rawCap)}`,
      );
  }
  for (const [script, rawRow] of Object.entries((triggers ?? {}) as Record<string, unknown>)) {
    if (typeof rawRow !== "object" || rawRow === null) {
      error(
        "TRIGGERS_FILE_INVALID",
        `triggers.${script} must be an object such as {"schedule": {"cron": "0 6 * * *"}}`,
      );
      continue;
    }
    const row = rawRow as Record<string, unknown>;
    let schedule: CronSchedule | undefined;
    let webhook: boolean | undefined;
    const consumed: Partial<Record<ConsumedKind, unknown>> = {};
    for (const [kind, value] of Object.entries(row)) {
      if (kind === "schedule") {
        try {
          schedule = parseSchedule(typeof value === "string" ? value : (value as { cron: string; timezone?: string }));
        } catch (err) {
          error("TRIGGER_SCHEDULE_INVALID", `triggers.${script}.schedule: ${(err as Error).message}`);
        }
      } else if (kind === "webhook") {
        if (value === false) continue;
        if (value !== true && (typeof value !== "object" || value === null))
          error("TRIGGERS_FILE_INVALID", `triggers.${script}.webhook must be true or an object`);
        else webhook = true;
      } else if (isConsumedKind(kind)) {
        try {
          parsePipelineRow(kind, value, { path: script, name: script }, file);
          consumed[kind] = value;
        } catch (err) {
          error("TRIGGER_ROW_INVALID", (err as Error).message);
        }
      } else {
        warn(
          "TRIGGERS_FILE_UNKNOWN_KEY",
          `triggers.${script}.${kind} is not a trigger kind and is ignored (kinds: ${NATIVE_TRIGGER_KINDS.join(", ")})`,
        );
      }
    }
    byScript.set(script, {
      ...(schedule && { schedule }),
      ...(webhook && { webhook }),
      ...(Object.keys(consumed).length > 0 && { consumed }),
    });
  }
  return { byScript, diagnostics, ...(depthCap !== undefined && { depthCap }) };
}

/**
 * The consumed-kind trigger specs of a member script: its rows whose kind it also marks
 * with `// on <kind>` (a row without its marker is ignored, as for schedules).
 */
export function pipelineSpecs(member: {
  path: string;
  name: string;
  folder: string;
  triggers: ScriptTriggers;
  analyzed: { annotations: { nativeTriggers: ReadonlyArray<{ kind: string }> } };
}): TriggerSpec[] {
  const rows = member.triggers.consumed ?? {};
  const source = member.folder === "" ? TRIGGERS_FILE : `${member.folder}/${TRIGGERS_FILE}`;
  const out: TriggerSpec[] = [];
  for (const [kind, raw] of Object.entries(rows)) {
    if (!isConsumedKind(kind) || !member.analyzed.annotations.nativeTriggers.some((t) => t.kind === kind)) continue;
    out.push(parsePipelineRow(kind, raw, member, source));
  }
  return out;
}
