/**
 * Runs the current release's code with no project folder (`sluice worker --release`,
 * `sluice server --release`): writes the release's files to a local tree, loads each module's
 * stored bundle (TypeScript with its npm dependencies bundled in; Python as it is), attaches the
 * pipelines of the tree, then follows the database. When a newer release is published, the
 * worker first drains: it stops taking new claims and waits for the claims it holds to end
 * (finish, or park on a sleep, wait or children), up to the drain timeout; then the new code is
 * loaded and claiming resumes on it. Runs already started finish on the version they are pinned
 * to (loaded from the store by hash) whenever they are claimed again.
 *
 * States: `idle` → `loading` → `following` → `draining` → `switching` → `following`; any → `stopped`.
 *
 * @module
 */
import { InvalidReleaseError, type ReleaseRecord } from "../core/release.js";
import type { Engine } from "../engine/engine.js";
import type { LoadReport, Project } from "../loader/project.js";
import type { PipelineHost } from "../pipeline/runtime/host.js";
import { SluiceError } from "../sdk/errors.js";
import { materializeRelease } from "./materialize.js";

/** There is no release to run yet. */
export class NoReleaseError extends SluiceError {
  constructor(db: string) {
    super(
      "NO_RELEASE",
      `${db} has no release yet: publish one with \`sluice deploy --db …\` from the project folder, then start this worker again`,
    );
  }
}

type Mode = "idle" | "loading" | "following" | "draining" | "switching" | "stopped";

/** Loads and follows the current release for one engine (see the module comment). */
export class ReleaseFollower {
  private mode: Mode = "idle";
  private release: ReleaseRecord | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private checking: Promise<void> | null = null;
  private pipelines: PipelineHost | null = null;
  private fetched: ReleaseRecord | null = null;
  /** Called after each switch to a newer release (a server retires its lane workers). */
  private readonly switched: Array<() => Promise<void> | void> = [];
  /** Aborts a drain in progress when the follower stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly engine: Engine,
    private readonly loader: Project,
    /** Where lines for people go (`release 3 loaded: …`). */
    private readonly say: (line: string) => void,
    /**
     * How long a switch waits for in-flight claims to drain before loading the new release anyway
     * (`--release-drain`, whose default is `RELEASE_DRAIN_OPTION` in `cli/release-mode.ts`).
     */
    private readonly drainMs: number,
  ) {}

  /** The release whose code is loaded now. */
  get current(): ReleaseRecord | null {
    return this.release;
  }

  private setMode(to: Mode, from: readonly Mode[]): void {
    if (!from.includes(this.mode)) throw new Error(`release follower: ${this.mode} → ${to} is not a transition`);
    this.mode = to;
  }

  /**
   * Writes the current release's files into the tree (before the pipelines are attached, so
   * they scan them).
   * @throws NoReleaseError when none was published; InvalidReleaseError when its files are missing
   */
  async fetch(dbLabel: string): Promise<ReleaseRecord> {
    this.setMode("loading", ["idle"]);
    const id = await this.engine.store.currentReleaseId();
    if (id === null) throw new NoReleaseError(dbLabel);
    const release = await this.engine.store.getRelease(id);
    if (!release) throw new InvalidReleaseError(`release ${id} disappeared while it was being loaded`);
    await materializeRelease(this.engine.store, release.manifest, this.loader.root, null);
    this.fetched = release;
    return release;
  }

  /** Loads the modules of the release {@link fetch} wrote. */
  async load(): Promise<LoadReport> {
    if (!this.fetched) throw new Error("release follower: load() before fetch()");
    const report = await this.apply(this.fetched);
    this.setMode("following", ["loading"]);
    return report;
  }

  /** Re-reads the pipelines of the tree when a release changes (after {@link load}). */
  attachPipelines(host: PipelineHost): void {
    this.pipelines = host;
  }

  /**
   * Calls `fn` after each switch to a newer release: a server's lanes retire their worker
   * processes (each drains its claims) so that new work starts a fresh worker on the new code.
   */
  onSwitch(fn: () => Promise<void> | void): void {
    this.switched.push(fn);
  }

  /** Checks for a newer release every `pollMs` and on every change the store reports. */
  follow(pollMs: number): void {
    const check = () => {
      this.checking ??= this.check().finally(() => (this.checking = null));
    };
    this.timer = setInterval(check, pollMs);
    this.timer.unref();
    this.unwatch = this.engine.store.watch(check);
  }

  /** Stops following (a switch in progress finishes first). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.unwatch?.();
    this.stopping.abort();
    await this.checking;
    this.mode = "stopped";
  }

  private async check(): Promise<void> {
    if (this.mode !== "following") return;
    const id = await this.engine.store.currentReleaseId().catch(() => null);
    if (id === null || id === this.release?.id) return;
    this.setMode("draining", ["following"]);
    const worker = this.engine.worker;
    try {
      await this.drain(id);
      if (this.stopping.signal.aborted) return;
      this.setMode("switching", ["draining"]);
      const next = await this.engine.store.getRelease(id);
      if (next) {
        const report = await this.apply(next);
        for (const e of report.errors) this.say(`warning: release ${id}: ${e.error.message}\n`);
        for (const fn of this.switched) await fn();
      }
    } catch (err) {
      this.say(`error: release ${id} could not be loaded, staying on ${this.release?.id}: ${(err as Error).message}\n`);
    } finally {
      worker?.resumeClaims();
      if ((this.mode as Mode) === "switching" || (this.mode as Mode) === "draining")
        this.setMode("following", ["switching", "draining"]);
    }
  }

  /** Holds this process's claiming until the claims it holds have ended (or the drain timeout). */
  private async drain(id: number): Promise<void> {
    const worker = this.engine.worker;
    if (!worker) return;
    const busy = worker.busy;
    if (busy > 0) this.say(`release ${id}: draining ${busy} in-flight claim(s) before switching\n`);
    const { left } = await worker.holdClaims(this.drainMs, this.stopping.signal);
    if (left > 0 && !this.stopping.signal.aborted)
      this.say(
        `release ${id}: ${left} claim(s) still running after ${this.drainMs} ms: switching anyway (they finish on their pinned version)\n`,
      );
  }

  /** Writes `next`'s files, unloads modules it dropped, loads the ones it changed or added. */
  private async apply(next: ReleaseRecord): Promise<LoadReport> {
    const prev = this.release;
    await materializeRelease(this.engine.store, next.manifest, this.loader.root, prev?.manifest ?? null);
    const report: LoadReport = { loaded: [], errors: [] };
    const before = new Map((prev?.manifest.modules ?? []).map((m) => [m.path, m]));
    const after = new Map(next.manifest.modules.map((m) => [m.path, m]));
    for (const [path, m] of before)
      if (m.language === "typescript" && !after.has(path)) await this.loader.removeFile(path);
    for (const [path, m] of after) {
      if (m.language !== "typescript" || before.get(path)?.bundle === m.bundle) continue;
      try {
        report.loaded.push(await this.loader.loadBuilt(path, m.bundle));
      } catch (error) {
        report.errors.push({ file: path, error: error as Error });
      }
    }
    const python = [...before.values(), ...after.values()].some((m) => m.language === "python");
    if (python) {
      const py = await this.loader.loadPython();
      report.loaded.push(...py.loaded);
      report.errors.push(...py.errors);
    }
    if (prev && this.pipelines) await this.pipelines.reload();
    this.release = next;
    this.say(
      `release ${next.id} loaded${prev ? ` (was ${prev.id})` : ""}: ${next.manifest.modules.length} module(s), ${next.manifest.workflows.length} workflow(s)\n`,
    );
    return report;
  }
}
