/**
 * The trigger rows of a project: its pipelines' `pipeline.json` rows (steps that load and
 * carry the kind's `// on <kind>` marker) and `sluice.json` `"triggers"`.
 */
import type { PipelineFolder } from "../../pipeline/runtime/catalog.js";
import { pipelineSpecs } from "../../pipeline/runtime/triggers-config.js";
import { parseConfigTriggers, type TriggerSpec } from "../spec.js";

/** Every trigger of a project. @throws TriggerError for a bad `sluice.json` row (pipeline rows are diagnostics of their folder) */
export function projectTriggers(folders: readonly PipelineFolder[], configTriggers: unknown): TriggerSpec[] {
  const out: TriggerSpec[] = [];
  for (const folder of folders)
    for (const m of folder.members) if (!folder.broken.has(m.path)) out.push(...pipelineSpecs(m));
  out.push(...parseConfigTriggers(configTriggers));
  return out;
}

/**
 * The ids of triggers that are configured but not running because their script is broken
 * (a syntax error while editing): their state and Postgres capture are kept, not swept.
 */
export function retainedTriggerIds(folders: readonly PipelineFolder[]): string[] {
  const out: string[] = [];
  for (const folder of folders)
    for (const m of folder.members)
      if (folder.broken.has(m.path))
        try {
          out.push(...pipelineSpecs(m).map((s) => s.id));
        } catch {
          // A row that does not parse is a diagnostic of its folder; nothing to keep by id.
        }
  return out;
}
