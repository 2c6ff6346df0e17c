/**
 * Handler for `// materialize [manual] ducklake://<name>/<table> [append] [key=<col>]`.
 *
 * First wins. Ignored with a warning: unknown options, options on a `manual` line,
 * `key=` together with `append` (append wins), a repeated `key=`.
 * Errors (the write would be wrong or impossible, so the script is rejected): a missing or
 * invalid target, a target that is not `ducklake://<name>/<table>`, a target with
 * `{partition}`, a malformed `key=`, a non-SQL script, and a managed script whose body is not
 * setup statements plus one trailing SELECT.
 */
import { isLakeName, LAKE_NAME_RULE } from "../core/lake-name.js";
import type { MaterializeAnnotation } from "./annotation-types.js";
import { isColumnName, words, type AnnotationHandler, type ParseState } from "./annotation-state.js";
import { parseAssetUri, type AssetUri } from "./asset-uri.js";
import { PipelineError } from "./errors.js";
import { checkMaterializeBody } from "./materialize-body.js";

function target(state: ParseState, text: string | undefined, line: number): AssetUri | undefined {
  if (text === undefined) {
    state.sink.error(
      line,
      "MATERIALIZE_TARGET_MISSING",
      `\`${state.prefix} materialize\` needs a target table; write e.g. \`${state.prefix} materialize ducklake://main/orders_daily\``,
    );
    return undefined;
  }
  let uri: AssetUri;
  try {
    uri = parseAssetUri(text);
  } catch (error) {
    const reason = error instanceof PipelineError ? error.message : String(error);
    state.sink.error(line, "MATERIALIZE_TARGET_INVALID", reason);
    return undefined;
  }
  if (uri.kind !== "ducklake" || uri.path.split("/").length !== 2) {
    state.sink.error(
      line,
      "MATERIALIZE_TARGET_NOT_DUCKLAKE",
      `materialize target ${uri.uri} is not a DuckLake table; write ducklake://<name>/<table>`,
    );
    return undefined;
  }
  const lake = uri.path.split("/")[0]!;
  if (!isLakeName(lake)) {
    state.sink.error(
      line,
      "MATERIALIZE_TARGET_INVALID",
      `materialize target ${uri.uri} names the lake ${JSON.stringify(lake)}; a lake name has ${LAKE_NAME_RULE}`,
    );
    return undefined;
  }
  if (uri.partitioned) {
    state.sink.error(
      line,
      "MATERIALIZE_TARGET_PARTITIONED",
      `materialize target ${uri.uri} contains {partition}; name the whole table — with ${state.prefix} partitioned, Sluice manages the partition slice inside it`,
    );
    return undefined;
  }
  return uri;
}

function strategy(
  state: ParseState,
  options: readonly string[],
  line: number,
): Pick<MaterializeAnnotation, "strategy" | "key"> | undefined {
  let append = false;
  let key: string | undefined;
  for (const option of options) {
    if (option === "append") append = true;
    else if (option.startsWith("key=")) {
      const col = option.slice(4).replace(/^(["'])(.*)\1$/, "$2");
      if (!isColumnName(col)) {
        state.sink.error(
          line,
          "MATERIALIZE_KEY_INVALID",
          `key=${JSON.stringify(col)} is not a column name; write key=<column>, e.g. key=order_id (ignoring it would silently replace instead of merge)`,
        );
        return undefined;
      }
      if (key !== undefined)
        state.sink.warn(line, "MATERIALIZE_KEY_REPEATED", `key= is given twice; the first (${key}) wins`);
      else key = col;
    } else {
      state.sink.warn(
        line,
        "MATERIALIZE_OPTION_UNKNOWN",
        `\`${option}\` is not a materialize option and is ignored; options are \`append\` and \`key=<col>\``,
      );
    }
  }
  if (append && key !== undefined) {
    state.sink.warn(
      line,
      "MATERIALIZE_APPEND_WINS",
      `append and key=${key} are mutually exclusive; append wins and key= is ignored`,
    );
    return { strategy: "append" };
  }
  if (append) return { strategy: "append" };
  return key === undefined ? { strategy: "replace" } : { strategy: "merge", key };
}

/** `// materialize …` */
export const onMaterialize: AnnotationHandler = (state, rest, line) => {
  if (state.materializeLine !== undefined) {
    state.sink.warn(
      line,
      "DUPLICATE_IGNORED",
      `this ${state.prefix} materialize is ignored: the first (line ${state.materializeLine}) wins; remove this line`,
    );
    return;
  }
  state.materializeLine = line;
  const tokens = words(rest);
  const manual = tokens[0] === "manual";
  if (manual) tokens.shift();
  if (state.language !== "sql" && state.language !== "unknown") {
    state.sink.error(
      line,
      "MATERIALIZE_NOT_DUCKDB",
      `${state.prefix} materialize is for DuckDB SQL scripts, not ${state.language}; from ${state.language} use the ducklake helpers (upsert_partition, append_partition) instead`,
    );
    return;
  }
  const uri = target(state, tokens[0], line);
  if (!uri) return;
  if (manual) {
    if (tokens.length > 1) {
      state.sink.warn(
        line,
        "MATERIALIZE_MANUAL_OPTIONS",
        `\`${tokens.slice(1).join(" ")}\` is ignored: a manual materialization is track-only and your script writes the table`,
      );
    }
    state.materialize = { mode: "manual", target: uri, strategy: "replace", line };
    return;
  }
  const chosen = strategy(state, tokens.slice(1), line);
  if (!chosen) return;
  const problem = checkMaterializeBody(state.source);
  if (problem) {
    state.sink.error(problem.line, "MATERIALIZE_BODY_NOT_SELECT", problem.message);
    return;
  }
  state.materialize = { mode: "managed", target: uri, ...chosen, line };
};
