/**
 * Plain DuckDB SQL and Bash scripts: every `.sql` and `.sh` file under `f/` and `u/` that is not a
 * pipeline member (no `-- pipeline` / `# pipeline` line) and not a pipeline's custom data test is a
 * runnable script named by its path without the extension (`f/lake/q.sql` → `f/lake/q`), as a
 * plain TypeScript (`export main`) or Python (`def main`) script is: `sluice enqueue`, the API and
 * UI, `sluice preview`, `taskScript`/`task_script`, releases. They run on the pipeline's runners
 * (DuckDB in-process, Bash as a subprocess with the bridge) without any pipeline machinery: no
 * asset records, no cascade, no partition (`plain-definition.ts`).
 *
 * Like pipeline SQL and Bash members, they are registered without a code version: a run executes
 * the file as it is when the run is claimed (a release's tree in release mode). The runners, and
 * with them DuckDB, load only when the project has such a script.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import type { Engine } from "../../engine/engine.js";
import { listProjectFiles } from "../../loader/project-files.js";
import { SCRIPT_FOLDERS } from "../../loader/project-marker.js";
import { clashingSibling } from "../../loader/sibling-clash.js";
import { DuplicateWorkflowError } from "../../sdk/errors.js";
import type { AnyWorkflow } from "../../sdk/workflow.js";
import { moduleName } from "../../worker/script-paths.js";
import type { PipelineCatalog } from "./catalog.js";
import { dataTestFile } from "./data-test-file.js";
import type { RunnerHost } from "./runners/index.js";

/** One plain script on disk. */
export interface PlainScript {
  /** Project-relative path, e.g. `f/lake/q.sql`. */
  readonly path: string;
  /** Runnable name: the path without extension, e.g. `f/lake/q`. */
  readonly name: string;
  /** Its folder, e.g. `f/lake`. */
  readonly folder: string;
  readonly language: "sql" | "bash";
  readonly source: string;
}

/** Largest file looked at (as for pipeline members). */
const MAX_BYTES = 2 * 1024 * 1024;

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, PlainScript["language"]>> = { ".sql": "sql", ".sh": "bash" };

function languageOf(name: string): PlainScript["language"] | undefined {
  return LANGUAGE_BY_EXTENSION[posix.extname(name)];
}

/**
 * The files of a project the pipelines own, which are therefore not plain scripts: every member
 * script, and every custom data test a member names (`// data_test f/checks/positive`).
 */
export function pipelineOwnedFiles(root: string, catalog: PipelineCatalog): Set<string> {
  const owned = new Set<string>();
  for (const m of catalog.members()) {
    owned.add(m.path);
    for (const t of m.analyzed.annotations.dataTests) {
      if (t.kind !== "script") continue;
      const file = dataTestFile(root, t.path);
      if (file !== undefined) owned.add(relative(root, file).split("\\").join("/"));
    }
  }
  return owned;
}

/** The plain scripts of `root` (sorted by path), leaving out the files in `owned`. */
export function discoverPlainScripts(root: string, owned: ReadonlySet<string>): PlainScript[] {
  const out: PlainScript[] = [];
  for (const path of listProjectFiles(root, (name) => languageOf(name) !== undefined, SCRIPT_FOLDERS)) {
    if (owned.has(path)) continue;
    let source: string;
    try {
      if (statSync(join(root, path)).size > MAX_BYTES) continue;
      source = readFileSync(join(root, path), "utf8");
    } catch {
      continue;
    }
    const folder = posix.dirname(path);
    out.push({ path, name: moduleName(path), folder, language: languageOf(path)!, source });
  }
  return out;
}

/** What plain scripts need from the process: its engine, the pipelines, asset storage and runner settings. */
export interface PlainScriptServices extends RunnerHost {
  readonly engine: Engine;
  /** The pipelines as last scanned (their members and data tests are not plain scripts). */
  catalog(): PipelineCatalog;
}

/** A registered plain script and the definition this process runs it with. */
interface Registered {
  readonly script: PlainScript;
  readonly def: AnyWorkflow;
}

/**
 * The plain scripts of one project in one process, kept registered with its engine as the files
 * come, change and go ({@link sync}; the pipeline host calls it at start and on every reload).
 */
export class PlainScripts {
  private readonly registered = new Map<string, Registered>();
  /** Names this registry refuses because two files would run as them (see `sibling-clash.ts`). */
  private readonly refused = new Set<string>();
  private problems = new Map<string, Error>();
  private runnersLoaded = false;

  constructor(
    private readonly services: PlainScriptServices,
    /** Where lines for people go (`loaded f/lake/q.sql: f/lake/q`). */
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The scripts registered now, by path. */
  scripts(): PlainScript[] {
    return [...this.registered.values()].map((r) => r.script).sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The scripts not registered because of a problem (a name clash), each with its error. */
  errors(): Array<{ file: string; error: Error }> {
    return [...this.problems].map(([file, error]) => ({ file, error }));
  }

  /**
   * Registers the plain scripts on disk now: new and changed ones get a fresh definition, the ones
   * gone (deleted, now pipeline members, or clashing) are withdrawn, and names two files would run
   * as are refused until one is renamed.
   */
  async sync(): Promise<void> {
    const { engine, root } = this.services;
    const found = discoverPlainScripts(root, pipelineOwnedFiles(root, this.services.catalog()));
    const problems = new Map<string, Error>();
    const clashing = new Set<string>();
    const fresh: PlainScript[] = [];
    const kept = new Map<string, Registered>();
    for (const script of found) {
      const problem = this.problemOf(script);
      if (problem) {
        problems.set(script.path, problem.error);
        if (problem.refuse) clashing.add(script.name);
        continue;
      }
      const before = this.registered.get(script.name);
      const unchanged =
        before?.script.path === script.path &&
        before.script.source === script.source &&
        engine.registry.get(script.name)?.def === before.def;
      if (unchanged) kept.set(script.name, before);
      else fresh.push(script);
    }
    this.syncRefusals(clashing, problems);
    // Registered before but not now: deleted, clashing, or a pipeline member now (then the pipeline's).
    const withdrawn = [...this.registered.values()].filter(
      (r) =>
        !kept.has(r.script.name) &&
        !fresh.some((s) => s.name === r.script.name) &&
        engine.registry.get(r.script.name)?.def === r.def,
    );
    const members = new Set(
      this.services
        .catalog()
        .members()
        .map((m) => m.name),
    );
    const gone = withdrawn.filter((r) => !members.has(r.script.name));
    for (const r of withdrawn) if (members.has(r.script.name)) engine.registry.remove(r.script.name);
    const built = fresh.length ? await this.definitions(fresh) : [];
    this.registered.clear();
    for (const [name, r] of kept) this.registered.set(name, r);
    for (const [i, script] of fresh.entries()) {
      const { def } = built[i]!;
      engine.registry.add({ def, version: null, source: script.path }, true);
      this.registered.set(script.name, { script, def });
    }
    if (gone.length) await engine.unregister(gone.map((r) => r.script.name));
    if (fresh.length) {
      if (engine.isStarted) await engine.publish();
      engine.events.emit("work");
    }
    for (const [i, s] of fresh.entries()) {
      this.log(`loaded ${s.path}: ${s.name} (${s.language === "sql" ? "DuckDB SQL" : "Bash"} script)`);
      for (const w of built[i]!.warnings) this.log(w);
    }
    for (const r of gone)
      if (!existsSync(join(root, r.script.path)))
        this.log(`removed ${r.script.name}: its file ${r.script.path} is gone`);
    for (const [file, error] of problems)
      if (this.problems.get(file)?.message !== error.message) this.log(`error: ${file}: ${error.message}`);
    this.problems = problems;
  }

  /** Stops the script bridge, if a Bash script started it. */
  async stop(): Promise<void> {
    if (!this.runnersLoaded) return;
    const { stopBridge } = await import("./runners/bridge.js");
    await stopBridge(this.services);
  }

  /** Why `script` cannot be registered now, if it cannot; `refuse` when its name must refuse runs. */
  private problemOf(script: PlainScript): { error: Error; refuse: boolean } | undefined {
    const { engine, root } = this.services;
    const sibling = clashingSibling(root, script.path, script.name);
    if (sibling)
      return { error: new DuplicateWorkflowError(script.name, `in ${script.path} and in ${sibling}`), refuse: true };
    const other = engine.registry.get(script.name);
    const mine = this.registered.get(script.name);
    if (other && other.def !== mine?.def && other.source !== script.path)
      return {
        error: new DuplicateWorkflowError(script.name, `in ${script.path} and in ${other.source ?? "in-process code"}`),
        refuse: false,
      };
    return undefined;
  }

  /** Refuses the names of clashing files (neither file runs) and accepts again the names whose clash is gone. */
  private syncRefusals(clashing: ReadonlySet<string>, problems: ReadonlyMap<string, Error>): void {
    const registry = this.services.engine.registry;
    for (const name of this.refused)
      if (!clashing.has(name) && registry.refusal(name) instanceof DuplicateWorkflowError) registry.allow(name);
    this.refused.clear();
    for (const [file, error] of problems) {
      const name = moduleName(file);
      if (!clashing.has(name)) continue;
      registry.refuse(name, error);
      this.refused.add(name);
    }
  }

  /** The definitions of `scripts` and their load warnings (the runners, and with them DuckDB, load here on first use). */
  private async definitions(scripts: readonly PlainScript[]): Promise<Array<{ def: AnyWorkflow; warnings: string[] }>> {
    const { plainDefinition, plainWarnings } = await import("./plain-definition.js");
    this.runnersLoaded = true;
    return scripts.map((s) => ({ def: plainDefinition(this.services, s), warnings: plainWarnings(s) }));
  }
}
