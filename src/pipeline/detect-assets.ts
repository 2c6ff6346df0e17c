/**
 * Best-effort detection of the assets a script reads and writes, from its code, per the
 * seed's "assets" rules: SDK calls (`detect-sdk.ts`), DuckDB SQL (`detect-sql.ts`), the
 * `// materialize` target, and Sluice's manual override `// asset <read|write|readwrite|ignore> <uri>`
 * for what cannot be inferred. Paths built at run time (other than `${partition}` /
 * `{partition}`) cannot be tracked and are reported.
 */
import type { ScriptAnnotations } from "./annotation-types.js";
import { hasAssetScheme, tryParseAssetUri, type AssetUri } from "./asset-uri.js";
import { detectSdkCalls, detectSqlClients, type SqlClient } from "./detect-sdk.js";
import { detectSqlLiterals, sqlAliases, tableUses, type SqlAlias } from "./detect-sql.js";
import {
  emptyOutput,
  type CodeFindings,
  type DetectedAccess,
  type DetectorOutput,
  type RawDetection,
} from "./detect-types.js";
import { DiagnosticSink, type Diagnostic } from "./diagnostics.js";
import { hintPrefix, languageFromPath, type ScriptLanguage } from "./language.js";
import { blankCommentLines, lineLocator, stringLiterals } from "./source-scan.js";

/** One asset a script uses, merged over every place it appears. */
export interface DetectedAsset {
  readonly asset: AssetUri;
  readonly access: DetectedAccess;
  /** First line it was found on (or the override's line). */
  readonly line: number;
  /** What recognised it, e.g. `["writeS3File"]`, `["COPY … TO", "// asset"]`. */
  readonly via: readonly string[];
  /** True when `// asset …` set the access. */
  readonly overridden: boolean;
}

/** The result of {@link detectAssets}. */
export interface DetectedAssets {
  /** Every asset, one entry per URI, in line order. */
  readonly assets: readonly DetectedAsset[];
  /** Assets read (`read` or `readwrite`). */
  readonly reads: readonly DetectedAsset[];
  /** Assets written (`write` or `readwrite`): the script's outputs. */
  readonly writes: readonly DetectedAsset[];
  /** Assets whose access could not be inferred (left out of the lineage). */
  readonly unknown: readonly DetectedAsset[];
  /** Warnings about untracked or ambiguous uses. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Options of {@link detectAssets}. */
export interface DetectAssetsOptions {
  readonly language?: ScriptLanguage;
  readonly path?: string;
  /** The script's parsed annotations: overrides and the materialize target are applied. */
  readonly annotations?: Pick<ScriptAnnotations, "assetOverrides" | "materialize">;
  /** What the script's own language's parser found (`ducklake()` helper calls; `runtime/lake-calls.ts`). */
  readonly code?: CodeFindings;
}

const SQL_START = /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|MERGE|COPY|ATTACH|FROM|DROP|ALTER|TRUNCATE)\b/i;

interface Segment {
  readonly text: string;
  readonly start: number;
}

function sqlSegments(text: string, language: ScriptLanguage): Segment[] {
  if (language === "sql") return [{ text, start: 0 }];
  return stringLiterals(text)
    .filter((l) => SQL_START.test(l.value))
    .map((l) => ({ text: l.value, start: l.start }));
}

function tableDetections(
  segments: readonly Segment[],
  aliases: readonly SqlAlias[],
  clients: readonly SqlClient[],
): RawDetection[] {
  const datatables = [...new Set(clients.filter((c) => c.kind === "datatable").map((c) => c.name))];
  const out: RawDetection[] = [];
  for (const segment of segments) {
    for (const use of tableUses(segment.text)) {
      const base =
        use.qualifier === undefined
          ? datatables.length === 1
            ? `datatable://${datatables[0]}`
            : undefined
          : aliases.find((a) => a.alias === use.qualifier)?.base;
      if (base)
        out.push({ uri: `${base}/${use.table}`, access: use.access, offset: segment.start + use.offset, via: use.via });
    }
  }
  return out;
}

function collect(
  text: string,
  language: ScriptLanguage,
  code: CodeFindings | undefined,
): { raw: DetectorOutput; consumed: Set<string> } {
  const raw = emptyOutput();
  const add = (o: DetectorOutput): void => {
    raw.detections.push(...o.detections);
    raw.dynamic.push(...o.dynamic);
  };
  const { clients, dynamic } = language === "sql" ? { clients: [], dynamic: [] } : detectSqlClients(text);
  if (language !== "sql") add(detectSdkCalls(text));
  raw.dynamic.push(...dynamic);
  add(detectSqlLiterals(text));
  const segments = sqlSegments(text, language);
  const aliases = segments.flatMap((s) => sqlAliases(s.text));
  const tables = tableDetections(segments, aliases, clients);
  raw.detections.push(...tables);
  const consumed = new Set(aliases.map((a) => a.base));
  if (code) {
    const offsetOf = lineOffsets(text);
    for (const d of code.detections)
      raw.detections.push({ uri: d.uri, access: d.access, offset: offsetOf(d.line), via: d.via });
    for (const d of code.dynamic) raw.dynamic.push({ offset: offsetOf(d.line), via: d.via });
    // a client whose helper calls name its tables: the tables are its uses, not the lake as a whole
    for (const base of code.clients) consumed.add(base);
  }
  for (const client of clients) {
    const base = `${client.kind}://${client.name}`;
    if (!tables.some((t) => t.uri.startsWith(`${base}/`)) && !consumed.has(base))
      raw.detections.push({ uri: base, access: "unknown", offset: client.offset, via: `${client.kind}()` });
  }
  for (const lit of stringLiterals(text)) {
    if (hasAssetScheme(lit.value) && !lit.dynamic)
      raw.detections.push({ uri: lit.value, access: "unknown", offset: lit.start, via: "string literal" });
  }
  return { raw, consumed };
}

/** A function from a 1-based line number to the offset where it starts in `text`. */
function lineOffsets(text: string): (line: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return (line) => starts[Math.min(Math.max(line, 1), starts.length) - 1]!;
}

function combine(a: DetectedAccess, b: DetectedAccess): DetectedAccess {
  if (a === b || b === "unknown") return a;
  if (a === "unknown") return b;
  return "readwrite";
}

/**
 * Detect the assets a script reads and writes.
 *
 * @example detectAssets("await wmill.writeS3File({ s3: 'demo/raw.json' }, data)", { language: "typescript" }).writes[0].asset.uri
 *   // "s3://demo/raw.json"
 */
export function detectAssets(source: string, options: DetectAssetsOptions = {}): DetectedAssets {
  const language = options.language ?? (options.path ? languageFromPath(options.path) : "unknown");
  const text = blankCommentLines(source, language);
  const lineOf = lineLocator(text);
  const sink = new DiagnosticSink();
  // a hint's annotation line must be a comment of the script's own language (`//` breaks Python)
  const c = hintPrefix(language);
  const { raw, consumed } = collect(text, language, options.code);
  for (const w of options.code?.warnings ?? []) sink.warn(w.line, w.code, w.message);
  type Entry = {
    asset: AssetUri;
    access: DetectedAccess;
    line: number;
    via: string[];
    overridden: boolean;
    offset: number;
  };
  const byUri = new Map<string, Entry>();
  const record = (asset: AssetUri, access: DetectedAccess, offset: number, via: string): void => {
    const entry = byUri.get(asset.uri);
    if (!entry)
      return void byUri.set(asset.uri, { asset, access, line: lineOf(offset), via: [via], overridden: false, offset });
    entry.access = combine(entry.access, access);
    if (offset < entry.offset) Object.assign(entry, { offset, line: lineOf(offset) });
    if (!entry.via.includes(via)) entry.via.push(via);
  };
  for (const d of raw.detections) {
    const asset = tryParseAssetUri(d.uri);
    if (!asset) raw.dynamic.push({ offset: d.offset, via: d.via });
    else if (!(d.access === "unknown" && consumed.has(asset.uri))) record(asset, d.access, d.offset, d.via);
  }
  const lineStart = lineOffsets(text);
  const materialize = options.annotations?.materialize;
  if (materialize) record(materialize.target, "write", lineStart(materialize.line), "// materialize");
  const overrides = options.annotations?.assetOverrides ?? [];
  for (const o of overrides) {
    if (o.access === "ignore") {
      byUri.delete(o.asset.uri);
      continue;
    }
    const entry = byUri.get(o.asset.uri);
    if (entry) Object.assign(entry, { access: o.access, overridden: true, via: [...entry.via, "// asset"] });
    else
      byUri.set(o.asset.uri, {
        asset: o.asset,
        access: o.access,
        line: o.line,
        via: ["// asset"],
        overridden: true,
        offset: lineStart(o.line),
      });
  }
  if (overrides.length === 0) {
    for (const d of raw.dynamic) {
      sink.warn(
        lineOf(d.offset),
        "DETECT_DYNAMIC_PATH",
        `\`${d.via}\` uses an asset path built at run time, so it cannot be tracked; declare it with \`${c} asset write <uri>\` or \`${c} asset read <uri>\` (use {partition} for the partition)`,
      );
    }
  }
  const assets: DetectedAsset[] = [...byUri.values()]
    .sort((a, b) => a.offset - b.offset)
    .map(({ offset: _offset, ...rest }) => rest);
  for (const a of assets.filter((x) => x.access === "unknown")) {
    sink.warn(
      a.line,
      "DETECT_ACCESS_UNKNOWN",
      `could not tell whether this script reads or writes ${a.asset.uri}, so it is left out of the lineage; add \`${c} asset read ${a.asset.uri}\` or \`${c} asset write ${a.asset.uri}\``,
    );
  }
  return {
    assets,
    reads: assets.filter((a) => a.access === "read" || a.access === "readwrite"),
    writes: assets.filter((a) => a.access === "write" || a.access === "readwrite"),
    unknown: assets.filter((a) => a.access === "unknown"),
    diagnostics: [...sink.items].sort((a, b) => a.line - b.line),
  };
}
