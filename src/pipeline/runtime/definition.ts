/**
 * A pipeline member as a runnable: the script's runner wrapped with the pipeline's run
 * protocol. One run of a member:
 *
 * 1. splits its payload into arguments and Sluice metadata (`_sluice`,
 *    `_wmill_skip_asset_dispatch`);
 * 2. a debounced run waits out its window and takes the last write;
 * 3. resolves its partition once and checkpoints it (`pipeline:partition`), so a retry
 *    reprocesses the same partition;
 * 4. runs the script, noting every asset it writes;
 * 5. adds the writes detected statically (with `{partition}` substituted) and
 *    checkpoints them all as `asset` steps;
 * 6. dispatches the cascade once (`pipeline:dispatch` checkpoint holds the decisions).
 *
 * Code errors are final, except on cascade-started runs of a script with `// retry N`,
 * which get N retries with the annotation's delay.
 */
import { ATTR, inSpan } from "../../worker/tracing.js";
import type { AssetHost } from "../../assets/host.js";
import { RUN_BACKOFF } from "../../core/backoff.js";
import type { ParamSpec } from "../../core/params.js";
import { WAC_MAX_ATTEMPTS } from "../../loader/runnables.js";
import type { WorkflowContext } from "../../sdk/context.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { type AnyWorkflow, defineWorkflow, type WorkflowModule } from "../../sdk/workflow.js";
import type { Store } from "../../store/types.js";
import { markTerminal } from "../../worker/control.js";
import { substitutePartition } from "../asset-match.js";
import { hintPrefix } from "../language.js";
import type { CronSchedule } from "../../core/cron.js";
import type { MemberScript, PipelineCatalog } from "./catalog.js";
import { passDebounceGate } from "./debounce.js";
import type { DispatchDecision } from "./decisions.js";
import type { ProducerRun } from "./dispatch.js";
import { type RunMeta, splitPayload } from "./meta.js";
import { resolveRunPartition, type ResolvedRunPartition, triggerOf } from "./partition.js";
import { currentExecution, PipelineRunContext } from "./run-context.js";

/** Runs one script's code. */
export interface ScriptRunner {
  /** Runs the script with its arguments (`partition` included when the run has one) and returns its result. */
  run(ctx: PipelineRunContext, args: Record<string, unknown> | unknown[]): Promise<unknown>;
}

/** What a pipeline definition needs from the host. */
export interface PipelineServices {
  readonly store: Store;
  /** The project's asset storage (opened asynchronously when the host is attached). */
  assets(): Promise<AssetHost>;
  catalog(): PipelineCatalog;
  /** The cron of the script's schedule row, when it has `// on schedule`. */
  scheduleOf(member: MemberScript): CronSchedule | undefined;
  dispatch(producer: ProducerRun): Promise<DispatchDecision[]>;
  /** Keeps `ctx` as the pipeline run of `exec`, so the SDK's asset helpers called by the script find it. */
  bindRun(exec: object, ctx: PipelineRunContext): void;
}

const CASCADE_TRIGGERS = new Set(["cascade", "debounce", "join"]);

/**
 * Build the runnable of a member script; `params` (a Python script's open spec, `script-params.ts`)
 * are what an enqueue of it checks its arguments against.
 */
export function pipelineDefinition(
  services: PipelineServices,
  member: MemberScript,
  runner: ScriptRunner,
  module?: WorkflowModule,
  params?: ParamSpec | null,
): AnyWorkflow {
  const a = member.analyzed.annotations;
  const delayMs = a.retry?.delay ? a.retry.delay.seconds * 1000 : undefined;
  const schedule = services.scheduleOf(member);
  return defineWorkflow(member.name, {
    retries: WAC_MAX_ATTEMPTS - 1,
    backoff: delayMs === undefined ? RUN_BACKOFF : { base: delayMs, max: delayMs },
    ...(a.tag && { worker: a.tag.name }),
    ...(schedule && { schedule }),
    module: module ?? { path: member.path, functions: new Map() },
    params: params ?? null,
    handler: (payload: unknown, ctx: WorkflowContext) => runMember(services, member, runner, payload, ctx),
  });
}

async function debounceGate(services: PipelineServices, ctx: WorkflowContext, meta: RunMeta): Promise<RunMeta> {
  if (meta.slot === undefined || meta.window === undefined) return meta;
  for (;;) {
    const gate = await ctx.run(
      "pipeline:debounce",
      () => passDebounceGate(services.store, meta.slot!, meta.window!, Date.now()),
      { retry: false },
    );
    if ("wait" in gate) {
      await ctx.sleep("pipeline:debounce-wait", gate.wait);
      continue;
    }
    if (!gate.last) return meta;
    ctx.logger.info(
      `debounce window ${meta.window}: ${gate.count} write(s) coalesced; running for the last one (run ${gate.last.run} of ${gate.last.script})`,
    );
    return {
      ...meta,
      depth: gate.last.depth,
      firedAt: gate.last.firedAt,
      upstream: { run: gate.last.run, script: gate.last.script, assets: gate.last.assets },
    };
  }
}

function staticWrites(member: MemberScript, partition: string | undefined, log: (m: string) => void): string[] {
  const out: string[] = [];
  // a manual materialization's table is recorded by its runner, only when it did change (`manual-materialize.ts`)
  const manual = member.analyzed.annotations.materialize;
  for (const w of member.analyzed.assets.writes) {
    if (manual?.mode === "manual" && w.asset.uri === manual.target.uri) continue;
    if (!w.asset.partitioned) out.push(w.asset.uri);
    else if (partition !== undefined) out.push(substitutePartition(w.asset, partition).uri);
    else log(`${w.asset.uri} was not recorded as written: the run has no partition to put in place of {partition}`);
  }
  return out;
}

async function runMember(
  services: PipelineServices,
  member: MemberScript,
  runner: ScriptRunner,
  payload: unknown,
  ctx: WorkflowContext,
): Promise<unknown> {
  const exec = currentExecution();
  if (!exec) throw markTerminal(new InvalidInputError(`${member.name} must run inside a Sluice run`));
  let split;
  try {
    split = splitPayload(payload);
  } catch (err) {
    throw markTerminal(err);
  }
  const given = { ...split.meta, trigger: triggerOf(exec.run, split.meta) };
  const meta = given.trigger === "debounce" ? await debounceGate(services, ctx, given) : given;
  const spec = member.analyzed.annotations.partitioned?.spec;
  const resolved: ResolvedRunPartition = await ctx.run(
    "pipeline:partition",
    () => resolveRunPartition(spec, exec.run, meta, split.args, split.partition),
    { retry: false },
  );
  if (resolved.warning) ctx.logger.warn(resolved.warning);
  const runCtx = new PipelineRunContext(
    await services.assets(),
    services.store,
    member,
    exec,
    meta,
    resolved.value,
    resolved.firedAt,
  );
  services.bindRun(exec, runCtx);
  const args =
    Array.isArray(split.args) || resolved.value === undefined
      ? split.args
      : { ...split.args, partition: resolved.value };
  let result: unknown;
  try {
    result = await inSpan(
      `script ${member.path}`,
      { [ATTR.runId]: exec.run.id, [ATTR.script]: member.path, [ATTR.language]: member.language },
      () => runner.run(runCtx, args),
    );
  } catch (err) {
    const retryable =
      CASCADE_TRIGGERS.has(meta.trigger) &&
      member.analyzed.annotations.retry !== undefined &&
      exec.run.attempt < exec.run.maxAttempts;
    if (retryable)
      ctx.logger.warn(
        `attempt ${exec.run.attempt} of ${exec.run.maxAttempts} failed (${hintPrefix(member.language)} retry ${member.analyzed.annotations.retry!.count}): ${(err as Error)?.message ?? String(err)}`,
      );
    throw retryable ? err : markTerminal(err);
  }
  for (const uri of staticWrites(member, resolved.value, (m) => ctx.logger.warn(m)))
    await runCtx.recordWrite(uri, "detected in code");
  await runCtx.flushWrites();
  const writes = runCtx.writes().map((w) => w.uri);
  await ctx.run("pipeline:dispatch", () =>
    services.dispatch({
      member,
      runId: exec.run.id,
      meta,
      partition: resolved.value,
      firedAt: resolved.firedAt,
      writes,
    }),
  );
  return result;
}
