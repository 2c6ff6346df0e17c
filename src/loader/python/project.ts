/**
 * The Python files of a project: found under `f/` and `u/` (Windmill's folders), inspected
 * in one Python process, registered as workflows and scripts that the worker runs on the
 * {@link PythonHost}. Like TypeScript modules, each file's source is stored by content hash
 * (a "bundle" with a Python header, which carries the file's `__mod/` companion modules) and
 * a run is pinned to the version it started on, modules included.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { companionSources } from "./companions.js";
import { listProjectFiles } from "../project-files.js";
import { join } from "node:path";
import type { Engine } from "../../engine/engine.js";
import { describeRelease, releaseExternalWorker } from "../../engine/external-leases.js";
import { clashingSibling } from "../sibling-clash.js";
import { DuplicateWorkflowError } from "../../sdk/errors.js";
import type { AnyWorkflow } from "../../sdk/workflow.js";
import { pythonDefinition, type PythonVersion } from "./definitions.js";
import { InvalidPythonHostError, PythonLoadError, PythonUnavailableError } from "./errors.js";
import type { WorkflowInfo } from "../../store/types.js";
import { PythonHost } from "./host.js";
import { inspectPythonFiles, type PythonParam } from "./inspect.js";
import { PythonProtocolWorker, type PythonProtocolWorkerOptions } from "./protocol-worker.js";

/** First line of a stored Python code version: the marker, then a JSON header. */
const BUNDLE_MARK = "#sluice-python ";

/** What a stored Python version says about its file (enough to rebuild its definition). */
interface BundleHeader {
  file: string;
  kind: "workflow" | "script";
  params: PythonParam[] | null;
  /** The `__mod/` companion modules at this version (path in the folder → source), when there are any. */
  modules?: Record<string, string>;
}

/** How a Python definition is published as an external workflow (as the registry would publish it). */
function infoOf(def: AnyWorkflow, hash: string, file: string): WorkflowInfo {
  return {
    name: def.name,
    version: hash,
    queue: def.queue,
    maxAttempts: def.maxAttempts,
    backoff: def.backoff,
    source: file,
    schedule: def.schedule,
    local: def.local,
    params: def.params,
  };
}

/**
 * Which Python host the CLI's `sluice dev`, `sluice worker` and folder-mode `sluice server` use:
 * the worker protocol unless `SLUICE_PYTHON_HOST=bridge` asks for the stdio bridge. (An
 * embedding app's `Project` and a `--release` server or worker use the bridge regardless.)
 */
export function pythonHostMode(env: NodeJS.ProcessEnv): "bridge" | "protocol" {
  const v = (env.SLUICE_PYTHON_HOST ?? "").trim().toLowerCase();
  if (v === "" || v === "protocol") return "protocol";
  if (v === "bridge") return "bridge";
  throw new InvalidPythonHostError(v);
}

/** Whether stored bundle code is a Python code version. */
function isPythonBundle(code: string): boolean {
  return code.startsWith(BUNDLE_MARK);
}

/** Top-level folders whose `.py` files are workflows and scripts. */
const PYTHON_ROOTS = ["f", "u"];
/** A pipeline member (`# pipeline`) is run by the pipeline runtime, not loaded here. */
const PIPELINE_MARK = /^[ \t]*#[ \t]*pipeline[ \t]*$/m;

/** One loaded Python file. */
export interface LoadedPythonFile {
  file: string;
  /** Content hash (shown; runs are not pinned to it). */
  hash: string;
  workflows: AnyWorkflow[];
}

/** Lists the project's Python workflow and script candidates (relative, sorted): files with a `def main`. */
function listPythonFiles(root: string): string[] {
  return listProjectFiles(root, (name) => name.endsWith(".py"), PYTHON_ROOTS).filter((file) => {
    const source = readFileSync(join(root, file), "utf8");
    return /^(?:async[ \t]+)?def[ \t]+main[ \t]*\(/m.test(source) && !PIPELINE_MARK.test(source);
  });
}

/** Loads a project's Python workflows into an engine. */
export class PythonProject {
  readonly host: PythonHost;
  private readonly namesByFile = new Map<string, string[]>();
  private unavailableSaid = false;
  /** `protocol`: the files' runs are claimed over HTTP by a supervised Python worker (see {@link useProtocol}). */
  private mode: "bridge" | "protocol" = "bridge";
  private worker: PythonProtocolWorker | null = null;

  constructor(
    readonly root: string,
    private readonly engine: Engine,
    private readonly owner: (name: string) => string | null,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.host = new PythonHost({ cwd: root, env });
  }

  /**
   * Runs the Python files on the worker protocol instead of the stdio host: from the next
   * load on, their workflows are published as external ones (enqueued, listed and shown as
   * before, never claimed by this process's own worker) and {@link startProtocolWorker}'s
   * process claims them. The CLI's default (see {@link pythonHostMode}); without this call
   * (an embedding app) the files run on the stdio bridge.
   */
  useProtocol(): void {
    this.mode = "protocol";
  }

  /** Whether the files run on the worker protocol. */
  get onProtocol(): boolean {
    return this.mode === "protocol";
  }

  /**
   * Starts the supervised Python worker that claims the loaded files' runs from the API at
   * `url` (it follows later reloads). Call once the API answers.
   */
  startProtocolWorker(options: Omit<PythonProtocolWorkerOptions, "python" | "cwd" | "onExit">): PythonProtocolWorker {
    // A process that exited holds claims no one works on: they are reclaimed now, not when their leases expire.
    const onExit = async (workerId: string) => {
      const runs = await releaseExternalWorker(this.engine, workerId);
      if (runs.length) options.write(`[python] ${describeRelease(runs, "Python worker")}`);
    };
    this.worker = new PythonProtocolWorker({ ...options, python: this.host.python, cwd: this.root, onExit });
    this.worker.setWorkflows(this.names());
    return this.worker;
  }

  /** The workflow and script names of the loaded Python files. */
  names(): string[] {
    return [...this.namesByFile.values()].flat();
  }

  /** Stops the supervised Python worker, if one runs. */
  async stopProtocolWorker(): Promise<void> {
    await this.worker?.stop();
  }

  /** Files this project loads as Python workflows or scripts. */
  files(): string[] {
    return listPythonFiles(this.root);
  }

  /** The file a name came from, if it is a Python one. */
  fileOf(name: string): string | null {
    for (const [file, names] of this.namesByFile) if (names.includes(name)) return file;
    return null;
  }

  /**
   * (Re)loads every Python file: each one that imports is registered; one that does not is
   * reported with its line and the others still load. A missing python3 is reported once.
   */
  async loadAll(): Promise<{ loaded: LoadedPythonFile[]; errors: Array<{ file: string; error: Error }> }> {
    const files = this.files();
    const loaded: LoadedPythonFile[] = [];
    const errors: Array<{ file: string; error: Error }> = [];
    let infos;
    try {
      infos = await inspectPythonFiles(this.host.python, this.root, files);
    } catch (err) {
      if (err instanceof PythonUnavailableError) {
        if (!this.unavailableSaid)
          errors.push({
            file: files[0] ?? "",
            error: new PythonUnavailableError(this.host.python, `${files.length} Python file(s) not loaded`),
          });
        this.unavailableSaid = true;
        return { loaded, errors };
      }
      throw err;
    }
    const seen = new Set<string>();
    for (const info of infos) {
      const file = info.file;
      seen.add(file);
      if ("error" in info) {
        errors.push({ file, error: new PythonLoadError(file, info.error.line, info.error.message) });
        await this.forget(file);
        continue;
      }
      const source = readFileSync(join(this.root, file), "utf8");
      const modules = companionSources(this.root, file);
      const header: BundleHeader | null =
        info.kind === "none" ? null : { file, kind: info.kind, params: info.params, ...(modules && { modules }) };
      const bundle = header ? `${BUNDLE_MARK}${JSON.stringify(header)}\n${source}` : "";
      const hash = createHash("sha256")
        .update(bundle || source)
        .digest("hex");
      const defs = header ? [this.definition(header, { hash, source })] : [];
      try {
        for (const d of defs) {
          const sibling = clashingSibling(this.root, file, d.name);
          if (sibling) {
            // Neither file runs (as the TypeScript loader does for its side): refused until one is renamed.
            const err = new DuplicateWorkflowError(d.name, `in ${file} and in ${sibling}`);
            this.engine.registry.refuse(d.name, err);
            throw err;
          }
          if (this.engine.registry.refusal(d.name) instanceof DuplicateWorkflowError)
            this.engine.registry.allow(d.name);
          const other = this.owner(d.name);
          if (other && other !== file) throw new DuplicateWorkflowError(d.name, `in ${file} and in ${other}`);
        }
      } catch (error) {
        errors.push({ file, error: error as Error });
        // A file that loaded before (a reload) is withdrawn: it must not run either.
        await this.forget(file);
        continue;
      }
      if (header) await this.engine.store.putBundle(hash, bundle);
      const before = this.namesByFile.get(file) ?? [];
      const gone = before.filter((n) => !defs.some((d) => d.name === n));
      if (gone.length) await this.withdraw(gone);
      if (defs.length && this.mode === "protocol")
        await this.engine.registerExternal(defs.map((d) => infoOf(d, hash, file)));
      else if (defs.length) await this.engine.register(defs, { version: hash, source: file, replace: true });
      this.namesByFile.set(
        file,
        defs.map((d) => d.name),
      );
      loaded.push({ file, hash, workflows: defs });
    }
    for (const file of [...this.namesByFile.keys()]) if (!seen.has(file)) await this.forget(file);
    this.worker?.setWorkflows(this.names());
    return { loaded, errors };
  }

  private definition(header: BundleHeader, code: PythonVersion): AnyWorkflow {
    return pythonDefinition(this.host, this.root, header.file, header.kind, header.params, {
      ...code,
      ...(header.modules && { modules: header.modules }),
    });
  }

  /**
   * The definitions of a stored Python code version (a run pinned to it after a restart or a
   * reload), or null when `code` is not a Python version.
   */
  definitionsOf(hash: string, code: string): AnyWorkflow[] | null {
    if (!isPythonBundle(code)) return null;
    const newline = code.indexOf("\n");
    const header = JSON.parse(code.slice(BUNDLE_MARK.length, newline)) as BundleHeader;
    return [this.definition(header, { hash, source: code.slice(newline + 1) })];
  }

  /** Forgets a deleted (or now broken) file's workflows. */
  async forget(file: string): Promise<string[]> {
    const names = this.namesByFile.get(file) ?? [];
    this.namesByFile.delete(file);
    if (names.length) await this.withdraw(names);
    return names;
  }

  private withdraw(names: string[]): Promise<void> {
    return this.mode === "protocol" ? this.engine.unregisterExternal(names) : this.engine.unregister(names);
  }

  /** Stops the Python process. */
  close(): void {
    this.host.close();
  }
}
