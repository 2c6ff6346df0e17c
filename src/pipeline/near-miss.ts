/**
 * Warnings for comment lines that look like a mistyped annotation. Ordinary prose comments
 * are never reported: only a keyword glued to its value (`// retry3`), a known wrong form
 * (`// schedule "0 * * * *"`, `// partition daily`) or a wrong-case keyword followed by
 * something that reads as that annotation's value (`// On s3://…`).
 */
import { isNativeTriggerKind } from "./annotation-types.js";
import { hasAssetScheme } from "./asset-uri.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { parsePipelineDuration } from "./duration.js";
import type { CommentPrefix } from "./language.js";
import { isPartitionKind } from "./partition-spec.js";

const KEYWORDS = [
  "pipeline",
  "on",
  "trigger",
  "debounce",
  "freshness",
  "partitioned",
  "materialize",
  "data_test",
  "column",
  "tag",
  "retry",
  "asset",
];

function looksLikeValue(keyword: string, rest: string): boolean {
  const first = rest.split(/\s+/, 1)[0] ?? "";
  switch (keyword) {
    case "pipeline":
      return rest === "";
    case "on":
      return hasAssetScheme(first) || isNativeTriggerKind(first.toLowerCase());
    case "trigger":
      return first === "any" || first === "all";
    case "debounce":
    case "freshness":
      return parsePipelineDuration(first) !== undefined;
    case "retry":
      return /^\d+$/.test(first);
    case "partitioned":
      return isPartitionKind(first);
    case "materialize":
      return first === "manual" || hasAssetScheme(first);
    default:
      return false;
  }
}

/** Known wrong forms; `message` writes annotation lines with the script's comment prefix `c`. */
const WRONG_FORMS: ReadonlyArray<{ test: (keyword: string, rest: string) => boolean; message: (c: string) => string }> =
  [
    {
      test: (k, rest) => k === "schedule" && (rest === "" || /^["'\d*@]/.test(rest)),
      message: (c) =>
        `there is no \`${c} schedule\` annotation, so this line is ignored; write \`${c} on schedule\` and set the cron and time zone on the schedule itself`,
    },
    {
      test: (k, rest) => k === "partition" && isPartitionKind(rest.split(/\s+/, 1)[0] ?? ""),
      message: (c) =>
        `\`${c} partition\` is not an annotation, so this line is ignored; did you mean \`${c} partitioned\`?`,
    },
    {
      test: (k, rest) => k === "materialise" && (rest.startsWith("manual") || hasAssetScheme(rest)),
      message: (c) => `\`${c} materialise\` is not an annotation, so this line is ignored; write \`${c} materialize\``,
    },
    {
      test: (k) => k === "data-test" || k === "datatest",
      message: (c) => `this data test is ignored; the annotation is spelled \`${c} data_test\``,
    },
  ];

/**
 * Warn when an unknown comment keyword is probably a mistyped annotation; a hint writes the
 * annotation with `prefix`, the script's comment prefix (`hintPrefix`).
 */
export function checkNearMiss(
  sink: DiagnosticSink,
  keyword: string,
  rest: string,
  line: number,
  prefix: CommentPrefix = "//",
): void {
  const glued = KEYWORDS.find((k) => keyword.startsWith(k) && /^[\d=]/.test(keyword.slice(k.length)));
  if (glued) {
    sink.warn(
      line,
      "ANNOTATION_NEEDS_SPACE",
      `\`${keyword}\` is not an annotation, so this line is ignored; put a space after \`${glued}\``,
    );
    return;
  }
  const wrong = WRONG_FORMS.find((w) => w.test(keyword, rest));
  if (wrong) {
    sink.warn(line, "ANNOTATION_UNKNOWN", wrong.message(prefix));
    return;
  }
  const lower = keyword.toLowerCase();
  if (lower !== keyword && KEYWORDS.includes(lower) && looksLikeValue(lower, rest)) {
    sink.warn(
      line,
      "ANNOTATION_WRONG_CASE",
      `annotation keywords are lower-case, so \`${keyword}\` is ignored; write \`${lower}\``,
    );
  }
}
