/**
 * The parameters a Python pipeline script's run is checked against at enqueue, by the rule
 * workflows use (`core/params.ts` `checkArguments` on `loader/python/param-types.ts`'s types): its
 * `main` as `python3 -m wmill._inspect` reports it, the loader's own inspection of Python workflows
 * and scripts, so a hint is read exactly as for them. Only the types of the arguments given are
 * checked (an open spec): the runner drops arguments `main` does not take, and cascades, schedules
 * and freshness runs start a script without its arguments. TypeScript members are not checked: the
 * loader knows their parameter names, not their types.
 */
import type { ParamSpec } from "../../core/params.js";
import { inspectPythonFiles, type PythonParam } from "../../loader/python/inspect.js";
import { pythonParamSpec } from "../../loader/python/param-types.js";
import type { MemberScript } from "./catalog.js";

/**
 * The open spec of a pipeline script's `main`, or null when no argument of it can be checked
 * (`*args`/`**kwargs`, no readable hint). Nothing is required (so `null`, like a missing argument,
 * is let through): a run without its arguments is started by cascades, schedule rows and the UI's
 * form, and fails in the script if `main` needs them, as before. `partition` is left unchecked:
 * the run gives `main` its resolved partition as a string, whatever the payload said. Pure.
 */
export function pipelineParamSpec(params: PythonParam[] | null): ParamSpec | null {
  const spec = pythonParamSpec(params);
  const types = Object.entries(spec?.types ?? {}).filter(([name]) => name !== "partition");
  if (!spec || types.length === 0) return null;
  return { names: spec.names, required: [], types: Object.fromEntries(types), open: true };
}

/** The inspected parameters of Python members, by path and source (a reload inspects only what changed). */
export class PythonScriptParams {
  private readonly known = new Map<string, PythonParam[] | null>();

  constructor(
    private readonly python: string,
    private readonly root: string,
  ) {}

  /**
   * The open spec of each Python member of `members`, by path; inspects the ones not seen at
   * this source in one Python process. A file that does not import, or an interpreter that
   * cannot start, gives no spec (its runs are not checked; running it says what is wrong).
   */
  async specs(members: readonly MemberScript[]): Promise<Map<string, ParamSpec | null>> {
    const python = members.filter((m) => m.language === "python");
    const key = (m: MemberScript) => `${m.path}\u0000${m.source}`;
    const fresh = python.filter((m) => !this.known.has(key(m)));
    if (fresh.length > 0) {
      const infos = await inspectPythonFiles(
        this.python,
        this.root,
        fresh.map((m) => m.path),
      ).catch(() => null);
      const byFile = new Map((infos ?? []).map((i) => [i.file, "params" in i ? i.params : null]));
      if (infos) for (const m of fresh) this.known.set(key(m), byFile.get(m.path) ?? null);
    }
    // Only the current sources are kept (a long dev session edits many versions).
    const current = new Set(python.map(key));
    for (const k of this.known.keys()) if (!current.has(k)) this.known.delete(k);
    return new Map(python.map((m) => [m.path, pipelineParamSpec(this.known.get(key(m)) ?? null)]));
  }
}
