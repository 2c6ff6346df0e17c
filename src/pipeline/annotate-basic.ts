/**
 * Handlers for the single-valued script annotations: `pipeline`, `trigger`, `debounce`,
 * `freshness`, `tag` and `retry`. Malformed values are ignored with a warning and the
 * default is kept; for every first-wins annotation an ignored line does not claim the slot.
 */
import { noteMemberOnly, reportLaterLine, words, type AnnotationHandler } from "./annotation-state.js";
import { DURATION_HINT, parsePipelineDuration } from "./duration.js";

/** `// pipeline`: bare marker. */
export const onPipeline: AnnotationHandler = (state, rest, line) => {
  if (rest !== "") {
    state.sink.warn(
      line,
      "PIPELINE_NOT_BARE",
      `\`${state.prefix} pipeline\` must stand alone on its line; this line is ignored. Write \`${state.prefix} pipeline\` with nothing after it`,
    );
    return;
  }
  state.pipeline = true;
};

/** `// trigger any|all` (first wins; Sluice's choice where the seed is silent). */
export const onTrigger: AnnotationHandler = (state, rest, line) => {
  if (rest !== "any" && rest !== "all") {
    state.sink.warn(
      line,
      "TRIGGER_VALUE_UNKNOWN",
      `\`${state.prefix} trigger ${rest}\` is not a join mode; this line is ignored and inputs combine with \`any\`. Write \`${state.prefix} trigger any\` or \`${state.prefix} trigger all\``,
    );
    return;
  }
  noteMemberOnly(state, line);
  if (state.trigger) return reportLaterLine(state, "trigger", line, state.trigger.line, state.trigger.mode === rest);
  state.trigger = { mode: rest, line };
};

/** `// debounce <duration>`: default window for the script's asset inputs (first wins). */
export const onDebounce: AnnotationHandler = (state, rest, line) => {
  const duration = parsePipelineDuration(rest);
  if (!duration) {
    state.sink.warn(
      line,
      "DEBOUNCE_INVALID",
      `debounce ${JSON.stringify(rest)} is not a positive duration, so there is no script-level debounce (every write fans out); ${DURATION_HINT}`,
    );
    return;
  }
  if (state.debounce)
    return reportLaterLine(
      state,
      "debounce",
      line,
      state.debounce.line,
      state.debounce.duration.seconds === duration.seconds,
    );
  state.debounce = { duration, line };
};

/** `// freshness <duration>` (planned SLO metadata; first wins; empty value ignored). */
export const onFreshness: AnnotationHandler = (state, rest, line) => {
  if (rest === "") {
    state.sink.warn(
      line,
      "FRESHNESS_EMPTY",
      `\`${state.prefix} freshness\` has no duration and is ignored; write e.g. \`${state.prefix} freshness 2h\``,
    );
    return;
  }
  const duration = parsePipelineDuration(rest);
  if (!duration) {
    state.sink.warn(
      line,
      "FRESHNESS_INVALID",
      `freshness ${JSON.stringify(rest)} is not a duration and is ignored; ${DURATION_HINT}`,
    );
    return;
  }
  if (state.freshness)
    return reportLaterLine(
      state,
      "freshness",
      line,
      state.freshness.line,
      state.freshness.duration.seconds === duration.seconds,
    );
  state.freshness = { duration, line };
};

/** `// tag <name>`: worker tag taken verbatim (first wins; empty ignored). */
export const onTag: AnnotationHandler = (state, rest, line) => {
  if (rest === "") {
    state.sink.warn(
      line,
      "TAG_EMPTY",
      `\`${state.prefix} tag\` has no worker tag and is ignored; write e.g. \`${state.prefix} tag gpu\``,
    );
    return;
  }
  if (state.tag) return reportLaterLine(state, "tag", line, state.tag.line, state.tag.name === rest);
  if (/\s/.test(rest)) {
    state.sink.warn(
      line,
      "TAG_HAS_SPACE",
      `worker tag ${JSON.stringify(rest)} contains whitespace; it is used verbatim, but worker tags are usually one word — check this line is meant as an annotation`,
    );
  }
  state.tag = { name: rest, line };
};

/** `// retry <count> [<delay>]`: positive integer count, optional duration (first wins). */
export const onRetry: AnnotationHandler = (state, rest, line) => {
  const [countText = "", delayText, ...extra] = words(rest);
  const count = /^\d+$/.test(countText) ? Number(countText) : NaN;
  if (!Number.isSafeInteger(count) || count <= 0) {
    state.sink.warn(
      line,
      "RETRY_COUNT_INVALID",
      `retry count ${JSON.stringify(countText)} is not a positive integer; this line is ignored (no retries). Write e.g. \`${state.prefix} retry 3 10s\``,
    );
    return;
  }
  let delay = delayText === undefined ? undefined : parsePipelineDuration(delayText);
  if (state.retry) {
    const same = state.retry.count === count && state.retry.delay?.seconds === delay?.seconds;
    return reportLaterLine(state, "retry", line, state.retry.line, same);
  }
  if (delayText !== undefined && !delay) {
    state.sink.warn(
      line,
      "RETRY_DELAY_INVALID",
      `retry delay ${JSON.stringify(delayText)} is not a duration; retrying ${count} time(s) without a delay. ${DURATION_HINT}`,
    );
    delay = undefined;
  }
  if (extra.length > 0) {
    state.sink.warn(
      line,
      "RETRY_EXTRA_IGNORED",
      `\`${extra.join(" ")}\` after the retry delay is ignored; the form is \`${state.prefix} retry <count> [<delay>]\``,
    );
  }
  state.retry = delay ? { count, delay, line } : { count, line };
};
