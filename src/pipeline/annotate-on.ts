/**
 * Handler for `// on <asset-uri> [debounce=<duration>]` and `// on <kind>`.
 *
 * - A native kind must stand alone: anything after it makes the line malformed (ignored).
 * - An unrecognised or invalid URI is ignored with a warning.
 * - Identical lines are de-duplicated; the same asset with a different `debounce=` keeps the first.
 * - A malformed `debounce=` is dropped: the input falls back to the script-level `// debounce`, else none.
 * - Unknown options are ignored with a warning; the input itself still counts.
 * - Spaces around `=` are tolerated (`debounce = 30s` reads as `debounce=30s`).
 */
import { isNativeTriggerKind, NATIVE_TRIGGER_KINDS, type AssetInput } from "./annotation-types.js";
import { noteMemberOnly, reportLaterLine, words, type AnnotationHandler, type ParseState } from "./annotation-state.js";
import { hasAssetScheme, parseAssetUri } from "./asset-uri.js";
import { DURATION_HINT, parsePipelineDuration, type PipelineDuration } from "./duration.js";
import { PipelineError } from "./errors.js";

function onNativeKind(state: ParseState, kind: string, extra: readonly string[], line: number): void {
  if (!isNativeTriggerKind(kind)) return;
  if (extra.length > 0) {
    state.sink.warn(
      line,
      "ON_TRIGGER_MALFORMED",
      `\`${state.prefix} on ${kind}\` is a bare marker; \`${extra.join(" ")}\` makes this line malformed and it is ignored. Configure the cron, topic or other options on the ${kind} trigger itself`,
    );
    return;
  }
  noteMemberOnly(state, line);
  if (state.nativeTriggers.some((t) => t.kind === kind)) return;
  state.nativeTriggers.push({ kind, line });
}

function readDebounce(state: ParseState, options: readonly string[], line: number): PipelineDuration | undefined {
  let debounce: PipelineDuration | undefined;
  let seen = false;
  for (const option of options) {
    if (option.startsWith("debounce=")) {
      const text = option.slice("debounce=".length);
      if (seen) {
        state.sink.warn(
          line,
          "ON_DEBOUNCE_REPEATED",
          `a second debounce= (${JSON.stringify(text)}) on one line is ignored; keep one`,
        );
        continue;
      }
      seen = true;
      debounce = parsePipelineDuration(text);
      if (!debounce) {
        state.sink.warn(
          line,
          "ON_DEBOUNCE_INVALID",
          `debounce=${JSON.stringify(text)} is not a positive duration and is ignored: this input uses the script-level ${state.prefix} debounce, or no debounce; ${DURATION_HINT}`,
        );
      }
    } else if (hasAssetScheme(option)) {
      state.sink.warn(
        line,
        "ON_EXTRA_URI",
        `only one asset per \`${state.prefix} on\` line: ${option} is ignored; put it on its own \`${state.prefix} on\` line`,
      );
    } else {
      state.sink.warn(
        line,
        "ON_OPTION_UNKNOWN",
        `\`${option}\` is not an option of \`${state.prefix} on\` and is ignored; the only option is debounce=<duration>`,
      );
    }
  }
  return debounce;
}

function onAsset(state: ParseState, uriText: string, options: readonly string[], line: number): void {
  let asset;
  try {
    asset = parseAssetUri(uriText);
  } catch (error) {
    const reason = error instanceof PipelineError ? error.message : String(error);
    state.sink.warn(line, "ON_URI_INVALID", `${reason}; this \`${state.prefix} on\` line is ignored`);
    return;
  }
  const debounce = readDebounce(state, options, line);
  noteMemberOnly(state, line);
  const existing = state.inputs.find((i) => i.asset.uri === asset.uri);
  if (existing) {
    reportLaterLine(state, `on ${asset.uri}`, line, existing.line, existing.debounce?.seconds === debounce?.seconds);
    return;
  }
  const input: AssetInput = debounce ? { asset, debounce, line } : { asset, line };
  state.inputs.push(input);
}

/** `// on …` */
export const onOn: AnnotationHandler = (state, rest, line) => {
  const [first, ...extra] = words(rest.replace(/\s*=\s*/g, "="));
  if (first === undefined) {
    state.sink.warn(
      line,
      "ON_EMPTY",
      `\`${state.prefix} on\` needs an asset URI or a trigger kind and is ignored; write e.g. \`${state.prefix} on s3://bucket/key\` or \`${state.prefix} on schedule\``,
    );
    return;
  }
  if (isNativeTriggerKind(first)) return onNativeKind(state, first, extra, line);
  if (hasAssetScheme(first)) return onAsset(state, first, extra, line);
  const lower = first.toLowerCase();
  const hint = isNativeTriggerKind(lower)
    ? `trigger kinds are lower-case: write \`${state.prefix} on ${lower}\``
    : `use an asset URI (s3://, $res:, datatable://, ducklake://, volume://) or a trigger kind (${NATIVE_TRIGGER_KINDS.join(", ")})`;
  state.sink.warn(
    line,
    "ON_URI_UNRECOGNIZED",
    `\`${first}\` is neither an asset URI nor a trigger kind, so this \`${state.prefix} on\` line is ignored; ${hint}`,
  );
};
