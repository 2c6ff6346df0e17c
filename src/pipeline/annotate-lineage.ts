/**
 * Handlers for the accumulating lineage/test annotations: `// data_test …` and
 * `// column <out> <- <asset>.<col>, …`. Malformed lines drop fail-safe with a warning;
 * identical repeats are de-duplicated; `// column` lines for the same output merge.
 */
import type { AssetColumn, DataTest } from "./annotation-types.js";
import { isColumnName, words, type AnnotationHandler } from "./annotation-state.js";
import { tryParseAssetUri } from "./asset-uri.js";

/** Parse `<asset-uri>.<col>` (the column is after the last dot). */
export function parseAssetColumn(text: string): AssetColumn | undefined {
  const dot = text.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const column = text.slice(dot + 1);
  const asset = tryParseAssetUri(text.slice(0, dot));
  if (!asset || !isColumnName(column)) return undefined;
  return { asset: asset.uri, column };
}

const SCRIPT_PATH = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;
const DATA_TEST_FORMS =
  "`unique <col>`, `not_null <col>`, `accepted_values <col> = a,b,c`, `relationships <col> -> <asset-uri>.<col>` or a script path like `f/tests/check`";

function parseDataTest(rest: string, line: number): DataTest | undefined {
  const [kind = "", ...args] = words(rest);
  const tail = rest.slice(kind.length).trim();
  switch (kind) {
    case "unique":
    case "not_null":
      return args.length === 1 && isColumnName(args[0] as string)
        ? { kind, column: args[0] as string, line }
        : undefined;
    case "accepted_values": {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$/.exec(tail);
      if (!m) return undefined;
      const values = (m[2] as string).split(",").map((v) => v.trim());
      return values.some((v) => v === "") ? undefined : { kind, column: m[1] as string, values, line };
    }
    case "relationships": {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*->\s*(\S+)$/.exec(tail);
      const references = m ? parseAssetColumn(m[2] as string) : undefined;
      return m && references ? { kind, column: m[1] as string, references, line } : undefined;
    }
    default:
      if (args.length === 0 && SCRIPT_PATH.test(kind) && !kind.split("/").includes(".."))
        return { kind: "script", path: kind, line };
      return undefined;
  }
}

function sameTest(a: DataTest, b: DataTest): boolean {
  const strip = ({ line: _line, ...rest }: DataTest): unknown => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** `// data_test …` */
export const onDataTest: AnnotationHandler = (state, rest, line) => {
  const test = parseDataTest(rest, line);
  if (!test) {
    state.sink.warn(
      line,
      "DATA_TEST_MALFORMED",
      `\`${state.prefix} data_test ${rest}\` is malformed and dropped; the forms are ${DATA_TEST_FORMS}`,
    );
    return;
  }
  if (state.dataTests.some((t) => sameTest(t, test))) return;
  state.dataTests.push(test);
};

/** `// column <out> <- <asset-uri>.<col>[, …]` */
export const onColumn: AnnotationHandler = (state, rest, line) => {
  const m = /^(\S+)\s*<-\s*(.+)$/.exec(rest);
  const output = m?.[1];
  const sources = m?.[2]?.split(",").map((s) => parseAssetColumn(s.trim()));
  if (!output || !isColumnName(output) || !sources || sources.some((s) => s === undefined)) {
    state.sink.warn(
      line,
      "COLUMN_MALFORMED",
      `\`${state.prefix} column ${rest}\` is malformed and ignored; write \`${state.prefix} column <out_col> <- <asset-uri>.<col>[, <asset-uri>.<col> …]\`, e.g. \`${state.prefix} column total <- ducklake://wh/orders.amount, ducklake://wh/orders.tax\``,
    );
    return;
  }
  const entry = state.columns.get(output) ?? { sources: [], lines: [] };
  for (const source of sources as AssetColumn[]) {
    if (!entry.sources.some((s) => s.asset === source.asset && s.column === source.column)) entry.sources.push(source);
  }
  entry.lines.push(line);
  state.columns.set(output, entry);
};
