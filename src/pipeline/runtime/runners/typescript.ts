/**
 * TypeScript / JavaScript scripts: the module's `main`, bundled and loaded by the project
 * loader, called with the run's arguments mapped to its parameters by name. Arguments
 * `main` does not take are dropped with a log line (a webhook body or a propagated
 * `partition` often carries more than a step needs).
 */
import { type ParamList, paramList } from "../../../loader/params.js";
import type { ScriptRunner } from "../definition.js";
import type { PipelineRunContext } from "../run-context.js";

/** Map named arguments onto `params`; returns the call arguments and the names dropped. */
function mapArguments(args: Record<string, unknown>, params: ParamList): { call: unknown[]; dropped: string[] } {
  if (params.names === null || params.rest) return { call: [args], dropped: [] };
  const names = params.names;
  const dropped = Object.keys(args).filter((k) => !names.includes(k) && k !== "partition");
  return { call: names.map((n) => args[n]), dropped };
}

/** A runner calling a module's `main`. */
export function typescriptRunner(main: (...args: unknown[]) => unknown): ScriptRunner {
  const params = paramList(main);
  return {
    async run(ctx: PipelineRunContext, args: Record<string, unknown> | unknown[]): Promise<unknown> {
      if (Array.isArray(args)) return await main(...args);
      const { call, dropped } = mapArguments(args, params);
      if (dropped.length > 0)
        ctx.log("warn", `ignored argument(s) ${dropped.join(", ")}: main takes (${(params.names ?? []).join(", ")})`);
      return await main(...call);
    },
  };
}
