/**
 * Whole-script checks run after every line is parsed, and the conversion of parser state
 * into the immutable {@link ScriptAnnotations}.
 */
import type { ScriptAnnotations } from "./annotation-types.js";
import type { ParseState } from "./annotation-state.js";

function checkDataTests(state: ParseState): void {
  const first = state.dataTests[0];
  if (!first) return;
  if (state.materializeLine === undefined) {
    state.sink.error(
      first.line,
      "DATA_TEST_WITHOUT_MATERIALIZE",
      `${state.prefix} data_test needs a managed ${state.prefix} materialize ducklake://<name>/<table> in the same script; add one or remove the data tests`,
    );
  } else if (state.materialize?.mode === "manual") {
    state.sink.error(
      first.line,
      "DATA_TEST_ON_MANUAL",
      `${state.prefix} data_test is rejected on \`${state.prefix} materialize manual\`: tests run on slices Sluice writes itself; drop \`manual\` or remove the data tests`,
    );
  }
}

function checkTriggerAll(state: ParseState): void {
  if (state.trigger?.mode !== "all") return;
  const { line } = state.trigger;
  if (state.inputs.length === 0) {
    state.sink.warn(
      line,
      "TRIGGER_ALL_NO_INPUTS",
      `\`${state.prefix} trigger all\` has no effect without \`${state.prefix} on <asset>\` inputs; remove it`,
    );
  } else if (!state.inputs.some((i) => i.asset.partitioned)) {
    const message =
      `under \`${state.prefix} trigger all\` only inputs whose path contains {partition} fire the join, and none of this script's inputs do, ` +
      `so asset writes never run it; add {partition} to the partitioned inputs' paths or use \`${state.prefix} trigger any\``;
    if (state.nativeTriggers.length > 0) state.sink.warn(line, "TRIGGER_ALL_NO_PARTITION_INPUT", message);
    else state.sink.error(line, "TRIGGER_ALL_NO_PARTITION_INPUT", message);
  }
}

function checkCascadeOnly(state: ParseState): void {
  if (state.inputs.length > 0) return;
  if (state.debounce) {
    state.sink.warn(
      state.debounce.line,
      "DEBOUNCE_NO_INPUTS",
      `\`${state.prefix} debounce\` only applies to \`${state.prefix} on <asset>\` inputs and this script has none; it has no effect`,
    );
  }
  if (state.retry) {
    state.sink.warn(
      state.retry.line,
      "RETRY_NO_CASCADE",
      `\`${state.prefix} retry\` only applies to runs dispatched by an asset write, and this script has no \`${state.prefix} on <asset>\` input; it has no effect`,
    );
  }
}

/**
 * Warnings that ordinary prose comments trigger easily (`// on error, retry`, `// retry later`).
 * They are dropped for scripts without `// pipeline`, which are not pipeline members anyway.
 */
const PROSE_PRONE = new Set([
  "ON_EMPTY",
  "ON_URI_UNRECOGNIZED",
  "TRIGGER_VALUE_UNKNOWN",
  "DEBOUNCE_INVALID",
  "FRESHNESS_EMPTY",
  "FRESHNESS_INVALID",
  "TAG_EMPTY",
  "TAG_HAS_SPACE",
  "RETRY_COUNT_INVALID",
  "PARTITIONED_EMPTY",
  "PARTITIONED_KIND_UNKNOWN",
  "COLUMN_MALFORMED",
  "DATA_TEST_MALFORMED",
]);

function dropProseWarnings(state: ParseState): void {
  const keep = state.sink.items.filter((d) => d.severity === "error" || !PROSE_PRONE.has(d.code));
  state.sink.items.splice(0, state.sink.items.length, ...keep);
}

/** Run the whole-script checks and freeze the state. */
export function finalizeAnnotations(state: ParseState): ScriptAnnotations {
  if (!state.pipeline) dropProseWarnings(state);
  if (!state.pipeline && state.memberOnlyLine !== undefined) {
    state.sink.warn(
      state.memberOnlyLine,
      "NOT_A_PIPELINE_MEMBER",
      `this script has pipeline annotations but no \`${state.prefix} pipeline\` marker, so its triggers and options have no effect; add a \`${state.prefix} pipeline\` line`,
    );
  }
  checkDataTests(state);
  checkTriggerAll(state);
  checkCascadeOnly(state);
  const columns = [...state.columns].map(([output, c]) => ({ output, sources: c.sources, lines: c.lines }));
  return {
    pipeline: state.pipeline,
    inputs: state.inputs,
    nativeTriggers: state.nativeTriggers,
    trigger: state.trigger?.mode ?? "any",
    ...(state.trigger && { triggerLine: state.trigger.line }),
    ...(state.debounce && { debounce: state.debounce }),
    ...(state.freshness && { freshness: state.freshness }),
    ...(state.partitioned && { partitioned: state.partitioned }),
    ...(state.retry && { retry: state.retry }),
    ...(state.tag && { tag: state.tag }),
    ...(state.materialize && { materialize: state.materialize }),
    dataTests: state.dataTests,
    columns,
    assetOverrides: state.assetOverrides,
  };
}
