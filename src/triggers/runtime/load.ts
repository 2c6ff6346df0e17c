/**
 * The trigger rows of a project: its pipelines' `pipeline.json` rows (steps that load and
 * carry the kind's `// on <kind>` marker) and `sluice.json` `"triggers"`.
 */
import type { PipelineFolder } from "../../pipeline/runtime/catalog.js";
import { pipelineSpecs } from "../../pipeline/runtime/triggers-config.js";
import { CONSUMED_KINDS } from "../kinds.js";
import { parseConfigTriggers, pipelineTriggerId, type TriggerSpec } from "../spec.js";

/** Every trigger of a project. @throws TriggerError for a bad `sluice.json` row (pipeline rows are diagnostics of their folder) */
export function projectTriggers(folders: readonly PipelineFolder[], configTriggers: unknown): TriggerSpec[] {
  const out: TriggerSpec[] = [];
  for (const folder of folders)
    for (const m of folder.members) if (!folder.broken.has(m.path)) out.push(...pipelineSpecs(m));
  out.push(...parseConfigTriggers(configTriggers));
  return out;
}

/**
 * The ids a trigger of a broken script could have (a syntax error while editing, or a
 * `pipeline.json` that does not parse, whose rows then cannot be read at all): every kind of
 * every broken member. Their state and Postgres capture are kept, not swept.
 */
export function retainedTriggerIds(folders: readonly PipelineFolder[]): string[] {
  const out: string[] = [];
  for (const folder of folders)
    for (const m of folder.members)
      if (folder.broken.has(m.path)) for (const kind of CONSUMED_KINDS) out.push(pipelineTriggerId(m.name, kind));
  return out;
}
