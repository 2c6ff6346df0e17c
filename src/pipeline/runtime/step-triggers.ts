/**
 * The schedule and webhook rows of the project's pipelines (pure): what a folder's
 * `pipeline.json` declares for a step that opts in with `// on schedule` or `// on webhook`.
 * These are not native trigger rows (nothing is consumed, nothing to pause here: a step's
 * schedule is paused on the Schedules page), so `GET /api/triggers` and `sluice triggers`
 * list them apart from the native triggers.
 */
import type { CronSchedule } from "../../core/cron.js";
import type { PipelineFolder } from "./catalog.js";
import { triggerViews } from "./render.js";
import { TRIGGERS_FILE } from "./triggers-config.js";

/** A schedule or webhook row of a pipeline step. */
export interface StepTriggerView {
  readonly kind: "schedule" | "webhook";
  /** The pipeline folder, e.g. `f/demo`. */
  readonly folder: string;
  /** The step's runnable name, e.g. `f/demo/ingest`. */
  readonly script: string;
  /** The cron and time zone of a schedule, the URL of a webhook. */
  readonly detail: string;
  /** The file that declares it, e.g. `f/demo/pipeline.json`. */
  readonly configuredIn: string;
  /** A schedule row's cron and time zone (UTC when the row names none); null for a webhook. */
  readonly schedule: CronSchedule | null;
}

/** Every configured schedule and webhook row of loaded steps, in folder and member order. */
export function stepTriggers(folders: readonly PipelineFolder[]): StepTriggerView[] {
  const out: StepTriggerView[] = [];
  for (const folder of folders) {
    const configuredIn = folder.folder === "" ? TRIGGERS_FILE : `${folder.folder}/${TRIGGERS_FILE}`;
    for (const m of folder.members) {
      if (folder.broken.has(m.path)) continue;
      for (const t of triggerViews(m))
        if ((t.kind === "schedule" || t.kind === "webhook") && t.state === "configured")
          out.push({
            kind: t.kind,
            folder: folder.folder,
            script: m.name,
            detail: t.detail ?? "",
            configuredIn,
            schedule: t.kind === "schedule" ? (m.triggers.schedule ?? null) : null,
          });
    }
  }
  return out;
}
