/**
 * A plain DuckDB SQL or Bash script (`plain-scripts.ts`) as a runnable: its parameters, and a
 * handler that runs it on the pipeline's runner for its language with none of the pipeline's
 * run protocol (no partition, no asset records, no cascade). As a plain TypeScript or Python
 * script's run, an error the script raises fails the run at once (`WAC_MAX_ATTEMPTS`: the extra
 * attempts only cover a worker that dies mid-run).
 *
 * Parameters, as Windmill reads them:
 * - DuckDB: each `-- $name (type)` line (`-- $name (type) = default` for an optional one) names
 *   a parameter; those without a default are required. Values are coerced to the type and bound.
 * - Bash: each `name="$N"` line names the Nth positional argument. Every argument is optional and
 *   passed as a string (other JSON values as their JSON text; a missing one as `""`).
 *
 * This module loads the runners (and with them DuckDB's bindings on first use): it is imported
 * only when a project has a plain script.
 */
import { analyzeScript } from "../analyze.js";
import type { ScriptAnnotations } from "../annotation-types.js";
import { formatDiagnostic } from "../diagnostics.js";
import { WAC_MAX_ATTEMPTS } from "../../loader/runnables.js";
import type { ParamSpec } from "../../core/params.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { type AnyWorkflow, defineWorkflow } from "../../sdk/workflow.js";
import { markTerminal } from "../../worker/control.js";
import { ATTR, inSpan } from "../../worker/tracing.js";
import type { MemberScript } from "./catalog.js";
import type { RunMeta } from "./meta.js";
import type { PlainScript, PlainScriptServices } from "./plain-scripts.js";
import { currentExecution, PipelineRunContext } from "./run-context.js";
import { runnerFor } from "./runners/index.js";
import { parseSqlArguments } from "./runners/sql-args.js";
import { bashArguments } from "./runners/subprocess.js";

/** The metadata of every plain script run: started by hand (or as a task), never cascading. */
const PLAIN_META: RunMeta = {
  trigger: "manual",
  depth: 0,
  cascade: false,
  cascadeOffReason: "a plain script, not a pipeline member",
};

/** No annotation takes effect outside a pipeline (its `-- materialize`, `-- partitioned` … are ignored). */
const NO_ANNOTATIONS: ScriptAnnotations = {
  pipeline: false,
  inputs: [],
  nativeTriggers: [],
  trigger: "any",
  dataTests: [],
  columns: [],
  assetOverrides: [],
};

/** The parameters of a plain script (see the module comment). */
export function plainParams(script: Pick<PlainScript, "language" | "source">): ParamSpec {
  if (script.language === "sql") {
    const declared = parseSqlArguments(script.source);
    return {
      names: declared.map((a) => a.name),
      required: declared.filter((a) => a.defaultText === undefined).map((a) => a.name),
    };
  }
  return { names: bashArguments(script.source).filter((n) => n !== ""), required: [] };
}

/**
 * The script's arguments as its runner takes them: by name for DuckDB; for Bash by name, or the
 * positional list a `task(fn)(a, b)` style payload gives. A payload that is not an object or a
 * list is the first parameter's value.
 */
export function plainArguments(
  script: Pick<PlainScript, "language">,
  params: ParamSpec,
  payload: unknown,
): Record<string, unknown> | unknown[] {
  if (payload === null || payload === undefined) return {};
  if (Array.isArray(payload))
    return script.language === "bash"
      ? payload
      : Object.fromEntries(params.names.slice(0, payload.length).map((name, i) => [name, payload[i] as unknown]));
  if (typeof payload === "object") return payload as Record<string, unknown>;
  return params.names.length ? { [params.names[0]!]: payload } : {};
}

/** The script as the runners see it: a member of no pipeline, with no annotations in effect. */
function asMember(script: PlainScript): MemberScript {
  const analyzed = analyzeScript({ path: script.path, source: script.source });
  return {
    path: script.path,
    name: script.name,
    folder: script.folder,
    language: script.language,
    source: script.source,
    analyzed: { ...analyzed, annotations: NO_ANNOTATIONS },
    triggers: {},
  };
}

/**
 * What loading the script has to say: pipeline annotations without the `-- pipeline` marker take
 * no effect in a plain script (`NOT_A_PIPELINE_MEMBER`); a `-- materialize` is told apart, as it
 * is easy to miss that nothing is written.
 */
export function plainWarnings(script: PlainScript): string[] {
  const analyzed = analyzeScript({ path: script.path, source: script.source });
  const materialize = analyzed.annotations.materialize;
  const prefix = script.language === "sql" ? "--" : "#";
  const warnings = analyzed.diagnostics.filter((d) => d.code === "NOT_A_PIPELINE_MEMBER");
  if (materialize)
    warnings.push({
      severity: "warning",
      line: materialize.line,
      code: "NOT_A_PIPELINE_MEMBER",
      message: `\`${prefix} materialize\` takes effect only in a pipeline script: this plain script runs its SQL as it is and writes no table; add a \`${prefix} pipeline\` line`,
      script: script.path,
    });
  return warnings.map(formatDiagnostic);
}

/** The runnable of a plain script. */
export function plainDefinition(services: PlainScriptServices, script: PlainScript): AnyWorkflow {
  const member = asMember(script);
  const runner = runnerFor(services, member);
  if (!runner) throw new Error(`no runner for ${script.language} script ${script.path}`);
  const params = plainParams(script);
  return defineWorkflow(script.name, {
    retries: WAC_MAX_ATTEMPTS - 1,
    module: { path: script.path, functions: new Map() },
    params,
    handler: async (payload: unknown) => {
      const exec = currentExecution();
      if (!exec) throw markTerminal(new InvalidInputError(`${script.name} must run inside a Sluice run`));
      const ctx = new PipelineRunContext(
        await services.assets(),
        services.engine.store,
        member,
        exec,
        PLAIN_META,
        undefined,
        Date.now(),
      );
      const attributes = { [ATTR.runId]: exec.run.id, [ATTR.script]: script.path, [ATTR.language]: script.language };
      try {
        return await inSpan(`script ${script.path}`, attributes, () =>
          runner.run(ctx, plainArguments(script, params, payload)),
        );
      } catch (err) {
        throw markTerminal(err);
      }
    },
  });
}
