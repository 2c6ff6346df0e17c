/**
 * The pipelines of a project on disk: every script marked `// pipeline` (TypeScript,
 * JavaScript, Python, Bash, DuckDB SQL), grouped by folder, analysed by the pure layer
 * (`analyzePipeline`, given the `ducklake()` helper calls the scripts' own parsers find,
 * `lake-calls.ts`), with each folder's `pipeline.json` trigger rows. A folder with an
 * error diagnostic is not loaded.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { listProjectFiles } from "../../loader/project-files.js";
import { join, posix, relative } from "node:path";
import { analyzePipeline, type AnalyzedPipeline, type AnalyzedScript } from "../analyze.js";
import type { AssetInput } from "../annotation-types.js";
import { type Diagnostic, hasErrors } from "../diagnostics.js";
import { hintPrefix, languageFromPath, type ScriptLanguage } from "../language.js";
import { effectiveSchemes, type EffectiveScheme } from "../lineage-schemes.js";
import { cascadeEdges, scriptId } from "../lineage-graph.js";
import { moduleName } from "../../worker/script-paths.js";
import { longestPath } from "../topo-order.js";
import { dataTestFile } from "./data-test-file.js";
import { lakeCallsOf } from "./lake-calls.js";
import { reservedColumnErrors, type RecordedColumns } from "./reserved-column.js";
import type { CodeFindings } from "../detect-types.js";
import { DEFAULT_DEPTH_CAP, parseTriggersFile, type ScriptTriggers, TRIGGERS_FILE } from "./triggers-config.js";

/** File extensions that can be pipeline scripts. */
const PIPELINE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs", ".py", ".sh", ".sql"];
const MARKER = /^[ \t]*(?:\/\/|#|--)[ \t]*pipeline[ \t]*$/m;
const MAX_BYTES = 2 * 1024 * 1024;

/** One member script of a pipeline. */
export interface MemberScript {
  /** Project-relative path, e.g. `f/demo/ingest.ts`. */
  readonly path: string;
  /** Runnable (workflow) name: the path without extension, e.g. `f/demo/ingest`. */
  readonly name: string;
  /** Its folder, e.g. `f/demo`. */
  readonly folder: string;
  readonly language: ScriptLanguage;
  readonly source: string;
  /** Annotations and detected assets. */
  readonly analyzed: AnalyzedScript;
  /** Its rows of the folder's `pipeline.json`. */
  readonly triggers: ScriptTriggers;
}

/** One folder's pipeline. */
export interface PipelineFolder {
  readonly folder: string;
  readonly members: readonly MemberScript[];
  readonly analysis: AnalyzedPipeline;
  /** Every diagnostic: annotations, lineage validation, trigger rows, name clashes. */
  readonly diagnostics: readonly Diagnostic[];
  /** False when a diagnostic is an error (some script, or the whole folder, is not loaded). */
  readonly ok: boolean;
  /**
   * Scripts that are not loaded, with the reason: a script with an error diagnostic; every
   * script when the error is the folder's own (`pipeline.json`). The others load and run.
   */
  readonly broken: ReadonlyMap<string, string>;
  /** Hops a cascade chain may take (`pipeline.json` `"depthCap"`, default 5). */
  readonly depthCap: number;
  /** Effective partition scheme by script id (`script:<path>`). */
  readonly schemes: ReadonlyMap<string, EffectiveScheme>;
}

/** An asset input of a member script (what the cascade matches writes against). */
export interface Subscription {
  readonly member: MemberScript;
  readonly input: AssetInput;
}

function candidateFiles(root: string): string[] {
  return listProjectFiles(
    root,
    (name) =>
      PIPELINE_EXTENSIONS.some((x) => name.endsWith(x)) &&
      !/\.(test|spec)\.[mc]?[jt]s$/.test(name) &&
      !name.endsWith(".d.ts"),
  );
}

function readSource(root: string, rel: string): string | undefined {
  try {
    const full = join(root, rel);
    if (statSync(full).size > MAX_BYTES) return undefined;
    return readFileSync(full, "utf8");
  } catch {
    return undefined;
  }
}

function triggersOf(file: ReturnType<typeof parseTriggersFile>, path: string, name: string): ScriptTriggers {
  const base = posix.basename(name);
  return file.byScript.get(path) ?? file.byScript.get(name) ?? file.byScript.get(base) ?? {};
}

function entryCheck(m: { path: string; language: ScriptLanguage; source: string }): Diagnostic | undefined {
  const needs =
    m.language === "typescript" || m.language === "javascript"
      ? /\bexport\s+(?:async\s+)?function\s+main\b|\bexport\s+(?:const|let)\s+main\b|\bexport\s*\{[^}]*\bmain\b/
      : m.language === "python"
        ? /^def\s+main\s*\(/m
        : undefined;
  if (!needs || needs.test(m.source)) return undefined;
  const hint = m.language === "python" ? "def main(...):" : "export async function main(...) { ... }";
  return {
    severity: "error",
    line: 0,
    code: "SCRIPT_NO_MAIN",
    message: `this pipeline script has no entry point; add \`${hint}\``,
    script: m.path,
  };
}

/** The scripts an error diagnostic keeps from loading, each with its first error as the reason. */
export function brokenScripts(
  members: readonly { path: string }[],
  diagnostics: readonly Diagnostic[],
): Map<string, string> {
  const paths = new Set(members.map((m) => m.path));
  const out = new Map<string, string>();
  const errors = diagnostics.filter((d) => d.severity === "error");
  const folderWide = errors.find((d) => d.script === undefined || !paths.has(d.script));
  for (const m of members) {
    const own = errors.find((d) => d.script === m.path) ?? folderWide;
    if (own) out.set(m.path, `${own.message} (${own.script ?? "folder"}:${own.line}) [${own.code}]`);
  }
  return out;
}

function depthDiagnostic(analysis: AnalyzedPipeline, cap: number, triggersPath: string): Diagnostic | undefined {
  const chain = longestPath(
    analysis.graph.scripts.map((s) => s.id),
    cascadeEdges(analysis.graph),
  );
  if (chain.length - 1 <= cap) return undefined;
  return {
    severity: "warning",
    line: 0,
    code: "DEPTH_CAP_EXCEEDED",
    message: `the chain ${chain.map((id) => id.slice("script:".length)).join(" → ")} takes ${chain.length - 1} hops, more than the cascade's depth cap of ${cap}: the cascade stops after ${chain[cap]!.slice("script:".length)}; raise it with {"depthCap": ${chain.length - 1}} in ${triggersPath}`,
    script: chain[0]!.slice("script:".length),
  };
}

/** Analyse one folder's member sources (pure apart from reading `pipeline.json`). */
function analyzeFolder(
  root: string,
  folder: string,
  sources: ReadonlyArray<{ path: string; source: string }>,
  code: ReadonlyMap<string, CodeFindings>,
): PipelineFolder {
  const triggersPath = folder === "" ? TRIGGERS_FILE : `${folder}/${TRIGGERS_FILE}`;
  const triggersFile = parseTriggersFile(
    existsSync(join(root, triggersPath)) ? readSource(root, triggersPath) : undefined,
    triggersPath,
  );
  const analysis = analyzePipeline(
    sources.map((s) => ({ path: s.path, source: s.source, ...(code.has(s.path) && { code: code.get(s.path)! }) })),
  );
  const members: MemberScript[] = analysis.scripts
    .filter((s) => s.annotations.pipeline)
    .map((s) => {
      const name = moduleName(s.path);
      const source = sources.find((x) => x.path === s.path)?.source ?? "";
      return {
        path: s.path,
        name,
        folder,
        language: languageFromPath(s.path),
        source,
        analyzed: s,
        triggers: triggersOf(triggersFile, s.path, name),
      };
    });
  const extra: Diagnostic[] = [...triggersFile.diagnostics];
  const byName = new Map<string, MemberScript[]>();
  for (const m of members) byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
  for (const [name, same] of byName) {
    if (same.length > 1)
      for (const m of same)
        extra.push({
          severity: "error",
          line: 0,
          code: "PIPELINE_NAME_CLASH",
          message: `${same.map((x) => x.path).join(" and ")} would both run as ${name}; rename one of them`,
          script: m.path,
        });
  }
  for (const m of members) {
    const missingEntry = entryCheck(m);
    if (missingEntry) extra.push(missingEntry);
    extra.push(...dataTestFileChecks(root, m));
    const marked = new Set(m.analyzed.annotations.nativeTriggers.map((t) => t.kind));
    for (const t of m.analyzed.annotations.nativeTriggers) {
      const configured =
        t.kind === "schedule" ? !!m.triggers.schedule : t.kind === "webhook" ? !!m.triggers.webhook : false;
      if (!configured && (t.kind === "schedule" || t.kind === "webhook")) {
        extra.push({
          severity: "warning",
          line: t.line,
          code: "TRIGGER_NOT_CONFIGURED",
          message: `\`${hintPrefix(m.language)} on ${t.kind}\` has no trigger row yet, so it never fires; add it to ${triggersPath}, e.g. {"triggers": {"${posix.basename(m.name)}": {${t.kind === "schedule" ? '"schedule": {"cron": "0 6 * * *"}' : '"webhook": true'}}}}`,
          script: m.path,
        });
      }
    }
    if (m.triggers.schedule && !marked.has("schedule"))
      extra.push({
        severity: "warning",
        line: 0,
        code: "TRIGGER_WITHOUT_MARKER",
        message: `${triggersPath} configures a schedule for this script, but it has no \`${hintPrefix(m.language)} on schedule\` line, so the schedule is ignored; add the marker to opt in`,
        script: m.path,
      });
    if (m.triggers.webhook && !marked.has("webhook"))
      extra.push({
        severity: "warning",
        line: 0,
        code: "TRIGGER_WITHOUT_MARKER",
        message: `${triggersPath} configures a webhook for this script, but it has no \`${hintPrefix(m.language)} on webhook\` line, so the webhook is refused; add the marker to opt in`,
        script: m.path,
      });
  }
  const diagnostics = [...analysis.diagnostics, ...extra];
  const depthCap = triggersFile.depthCap ?? DEFAULT_DEPTH_CAP;
  const depth = depthDiagnostic(analysis, depthCap, triggersPath);
  if (depth) diagnostics.push(depth);
  return {
    folder,
    members,
    analysis,
    diagnostics,
    ok: !hasErrors(diagnostics),
    broken: brokenScripts(members, diagnostics),
    depthCap,
    schemes: effectiveSchemes(analysis.graph),
  };
}

/** A warning for each custom `// data_test <path>` of `m` with no file in the project (every run would fail its tests). */
function dataTestFileChecks(root: string, m: MemberScript): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const t of m.analyzed.annotations.dataTests) {
    if (t.kind !== "script") continue;
    const file = dataTestFile(root, t.path);
    if (file !== undefined && existsSync(file)) continue;
    const rel = file === undefined ? undefined : relative(root, file).split("\\").join("/");
    out.push({
      severity: "warning",
      line: t.line,
      code: "DATA_TEST_SCRIPT_NOT_FOUND",
      message:
        rel === undefined
          ? `\`${hintPrefix(m.language)} data_test ${t.path}\` is outside the project, so every run fails its data tests; name a .sql file under the project folder`
          : `\`${hintPrefix(m.language)} data_test ${t.path}\` names no file (${rel} does not exist), so every run fails its data tests; create ${rel} with one SELECT returning the offending rows of the view \`slice\`, or fix the path`,
      script: m.path,
    });
  }
  return out;
}

/** What the DuckDB-parsed checks found in one script ({@link PipelineCatalog.checked}), with the source they read. */
interface ScriptCheck {
  readonly source: string;
  readonly errors: readonly Diagnostic[];
}

/** `base` with each member's check errors added to its folder (which then does not load that script). */
function withCheckErrors(
  base: ReadonlyMap<string, PipelineFolder>,
  checks: ReadonlyMap<string, ScriptCheck>,
): Map<string, PipelineFolder> {
  const out = new Map<string, PipelineFolder>();
  for (const [name, f] of base) {
    const extra = f.members.flatMap((m) => checks.get(m.path)?.errors ?? []);
    if (extra.length === 0) {
      out.set(name, f);
      continue;
    }
    const diagnostics = [...f.diagnostics, ...extra];
    out.set(name, { ...f, diagnostics, ok: !hasErrors(diagnostics), broken: brokenScripts(f.members, diagnostics) });
  }
  return out;
}

/**
 * Every pipeline of a project, as found on disk at {@link PipelineCatalog.scan} time. The checks
 * that need DuckDB's parser (`reserved-column.ts`) are asynchronous: {@link PipelineCatalog.load}
 * (or {@link PipelineCatalog.checked}) runs them; a synchronous rescan keeps what the last check
 * found for the scripts whose source has not changed.
 */
export class PipelineCatalog {
  private readonly byFolder: ReadonlyMap<string, PipelineFolder>;

  private constructor(
    readonly root: string,
    /** The folders as analysed, without the checks' errors. */
    private readonly base: ReadonlyMap<string, PipelineFolder>,
    private readonly checks: ReadonlyMap<string, ScriptCheck> = new Map(),
  ) {
    this.byFolder = withCheckErrors(base, checks);
  }

  /**
   * Find and analyse every pipeline script under `root`, without the DuckDB-parsed checks; the
   * errors they found in `previous` are kept for scripts whose source is unchanged.
   */
  static scan(root: string, previous?: PipelineCatalog): PipelineCatalog {
    const groups = new Map<string, Array<{ path: string; source: string }>>();
    for (const path of candidateFiles(root)) {
      const source = readSource(root, path);
      if (source === undefined || !MARKER.test(source)) continue;
      const folder = posix.dirname(path) === "." ? "" : posix.dirname(path);
      groups.set(folder, [...(groups.get(folder) ?? []), { path, source }]);
    }
    const code = lakeCallsOf([...groups.values()].flat());
    const folders = new Map<string, PipelineFolder>();
    for (const [folder, sources] of groups) {
      const info = analyzeFolder(root, folder, sources, code);
      if (info.members.length > 0) folders.set(folder, info);
    }
    const sourceOf = new Map([...folders.values()].flatMap((f) => f.members.map((m) => [m.path, m.source] as const)));
    const kept = new Map([...(previous?.checks ?? [])].filter(([path, c]) => sourceOf.get(path) === c.source));
    return new PipelineCatalog(root, folders, kept);
  }

  /** {@link scan} and then {@link checked}: what `sluice pipeline …` commands report and run. */
  static async load(root: string, recordedColumns?: RecordedColumns): Promise<PipelineCatalog> {
    return PipelineCatalog.scan(root).checked(recordedColumns);
  }

  /**
   * This catalog with the checks that need DuckDB's parser run on every script (a `// partitioned`
   * materialization's SELECT producing `_partition`: an error, so that script does not load).
   * `recordedColumns` gives a lake table's columns as its last write left them.
   */
  async checked(recordedColumns?: RecordedColumns): Promise<PipelineCatalog> {
    const errors = await reservedColumnErrors([...this.base.values()], recordedColumns);
    const checks = new Map<string, ScriptCheck>();
    for (const f of this.base.values())
      for (const m of f.members)
        checks.set(m.path, { source: m.source, errors: errors.filter((e) => e.script === m.path) });
    return new PipelineCatalog(this.root, this.base, checks);
  }

  /** Every pipeline folder, sorted. */
  folders(): PipelineFolder[] {
    return [...this.byFolder.values()].sort((a, b) => (a.folder < b.folder ? -1 : 1));
  }

  /** A folder's pipeline (project-relative folder, no trailing slash). */
  folder(folder: string): PipelineFolder | undefined {
    return this.byFolder.get(folder.replace(/^\.\/?/, "").replace(/\/+$/, ""));
  }

  /** Every member script of every folder. */
  members(): MemberScript[] {
    return this.folders().flatMap((f) => f.members);
  }

  /** A member by project-relative path or runnable name. */
  member(pathOrName: string): MemberScript | undefined {
    return this.members().find((m) => m.path === pathOrName || m.name === pathOrName);
  }

  /** The folder a member belongs to. */
  folderOf(member: MemberScript): PipelineFolder {
    return this.byFolder.get(member.folder)!;
  }

  /**
   * Every asset input of every member: what the cascade fires. Members that are not loaded
   * are included, so a cascade to one records why it did not run ({@link notLoaded}).
   */
  subscriptions(): Subscription[] {
    return this.folders().flatMap((f) =>
      f.members.flatMap((member) => member.analyzed.annotations.inputs.map((input) => ({ member, input }))),
    );
  }

  /** Why a member is not loaded (an error in it or in its folder's `pipeline.json`), or undefined when it is. */
  notLoaded(member: MemberScript): string | undefined {
    return this.folderOf(member).broken.get(member.path);
  }

  /** The effective partition scheme of a member (own, or inherited from upstream). */
  scheme(member: MemberScript): EffectiveScheme | undefined {
    return this.folderOf(member).schemes.get(scriptId(member.path));
  }
}
