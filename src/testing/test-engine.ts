/**
 * An engine for tests of user workflows: a fresh SQLite file in a temporary folder (removed by
 * `close()`), a fast-polling worker, no scheduler, every sleep parked durably, and a
 * {@link TestClock} so a test skips hours of sleeps, `waitFor` timeouts and approval deadlines
 * in milliseconds. The same engine, store and worker as production: only the settings differ.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Duration, toMillis } from "../core/duration.js";
import { deserializeError, decodeValue } from "../core/serde.js";
import { isTerminal } from "../core/run-status.js";
import { createEngine, type Engine, type EngineOptions } from "../engine/engine.js";
import type { EnqueueOptions, RunHandle } from "../sdk/types.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { WaitTimeoutError } from "../sdk/errors.js";
import { openSqliteStore } from "../store/sqlite/store.js";
import type { RunRecord, Store } from "../store/types.js";
import { blocksOf, nextTimer, type RunBlock } from "./blocked.js";
import { TestProjectLoadError, TestRunBlockedError } from "./errors.js";
import { TestClock } from "./test-clock.js";

/** Options of {@link createTestEngine}. */
export interface TestEngineOptions {
  /** Workflow definitions to register (`defineWorkflow`). */
  workflows?: AnyWorkflow[];
  /**
   * A project folder whose workflow modules are loaded as `sluice dev` loads them (`workflows/`,
   * modules under `f/` that call `defineWorkflow` or export `main`, Windmill-style `workflow()`/`task()`);
   * it must be a Sluice project (a `sluice.json`, or a `workflows/`, `src/workflows/`, `f/` or `u/` folder).
   */
  project?: string;
  /** The SQLite file. Default: `sluice.db` in a new temporary folder that `close()` removes. */
  database?: string;
  /** Runs executed at once (default 10). */
  concurrency?: number;
  /** Route `console.*` of runs into their logs (default false: tests print as usual). */
  captureConsole?: boolean;
  /** Other engine settings (`retention`, `maxValueBytes`, `echo`, …). */
  engine?: Omit<EngineOptions, "store" | "database" | "workflows" | "worker" | "scheduler">;
}

/** Options of {@link TestEngine.runToCompletion}. */
export interface RunToCompletionOptions extends EnqueueOptions {
  /** Give up after this much real time (default `"30s"`): `WaitTimeoutError`. */
  timeout?: Duration;
  /**
   * When every unfinished run only waits for a timer (a sleep, a `waitFor` or approval timeout),
   * move the test clock to the earliest one instead of waiting for it. Default true.
   */
  skipTime?: boolean;
  /**
   * Called when the run is parked on a signal or an approval and nothing else can run: send the
   * signal or decide the approval here. Without it such a run fails the call with
   * `TestRunBlockedError`. Called again each time the run parks anew.
   */
  onWaiting?: (run: RunRecord, blocks: readonly RunBlock[]) => void | Promise<void>;
}

/** A finished run: its record, and its result or error decoded. */
export interface CompletedRun<R> {
  readonly id: string;
  readonly status: "succeeded" | "failed" | "cancelled";
  /** The run's result (when it succeeded). */
  readonly result: R | undefined;
  /** The run's error (when it failed), as `handle.result()` would throw it. */
  readonly error: Error | undefined;
  readonly record: RunRecord;
}

/** A started engine for tests; see {@link createTestEngine}. */
export class TestEngine {
  /** The real pause between two looks at the awaited run (ms). */
  private static readonly POLL_MS = 10;

  constructor(
    readonly engine: Engine,
    readonly store: Store,
    readonly clock: TestClock,
    private readonly cleanup: () => Promise<void>,
  ) {}

  /**
   * Enqueues a run and waits until it has finished, skipping time over its sleeps and timeouts
   * (see {@link RunToCompletionOptions}). A failed or cancelled run is returned, not thrown.
   * @throws TestRunBlockedError when the run waits on a signal or approval nobody sends
   * @throws WaitTimeoutError when it does not finish within `timeout` of real time
   */
  async runToCompletion<R = unknown>(
    workflow: string | AnyWorkflow,
    payload?: unknown,
    options: RunToCompletionOptions = {},
  ): Promise<CompletedRun<R>> {
    const { timeout, skipTime, onWaiting, ...enqueue } = options;
    const handle = await this.engine.enqueueRun<R>(workflow, payload, enqueue);
    return this.complete(handle, { timeout, skipTime, onWaiting });
  }

  /** Waits for an already enqueued run as {@link runToCompletion} does. */
  async complete<R = unknown>(
    run: RunHandle<R> | string,
    options: Omit<RunToCompletionOptions, keyof EnqueueOptions> = {},
  ): Promise<CompletedRun<R>> {
    const id = typeof run === "string" ? run : run.id;
    const limit = toMillis(options.timeout ?? "30s");
    const deadline = Date.now() + limit;
    let reported = "";
    for (;;) {
      const record = await this.engine.getRun(id);
      if (!record) throw new WaitTimeoutError(id, limit);
      if (isTerminal(record.status)) return completed<R>(record);
      if (Date.now() > deadline) throw new WaitTimeoutError(id, limit);
      // Idle: nothing runs and nothing queued is due now. A timer then can move the run on (a
      // sleep, a wait's timeout, a future runAt, a retry's backoff) unless it waits on a person.
      const queued = await this.store.listRuns({ status: ["pending", "waiting"], limit: 1000 });
      const now = this.clock.now();
      const dueNow = queued.some((r) => r.status === "pending" && (r.readyAt === null || r.readyAt <= now));
      if (!dueNow && (await this.store.countRuns({ status: "running" })) === 0) {
        const blocks = record.status === "waiting" ? blocksOf(await this.store.getSteps(id)) : [];
        const timer = nextTimer(queued);
        if (blocks.length === 0 && timer !== null && options.skipTime !== false) {
          await this.advance(Math.max(0, timer - now) + 1);
        } else if (blocks.length > 0) {
          const key = JSON.stringify(blocks);
          if (key !== reported) {
            reported = key;
            if (!options.onWaiting) throw new TestRunBlockedError(id, blocks);
            await options.onWaiting(record, blocks);
          }
        }
      } else reported = "";
      await new Promise((r) => setTimeout(r, TestEngine.POLL_MS));
    }
  }

  /** Moves the test clock forward and wakes the worker, so what became due runs now. */
  async advance(duration: Duration): Promise<void> {
    this.clock.advance(duration);
    this.engine.events.emit("work");
  }

  /** Stops the engine, closes the store and removes the temporary database. */
  async close(): Promise<void> {
    await this.cleanup();
  }

  /** `await using t = await createTestEngine(…)` closes it at the end of the block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function completed<R>(record: RunRecord): CompletedRun<R> {
  return {
    id: record.id,
    status: record.status as CompletedRun<R>["status"],
    result: record.status === "succeeded" ? decodeValue<R>(record.result) : undefined,
    error: record.error ? deserializeError(record.error) : undefined,
    record,
  };
}

/**
 * Starts an engine for a test on a fresh SQLite file.
 * @example
 * const t = await createTestEngine({ workflows: [remind] });
 * const run = await t.runToCompletion(remind, { user: "ada" }); // a 24 h sleep passes at once
 * expect(run.result).toBe("reminded ada");
 * await t.close();
 * @throws TestProjectLoadError when `project` has modules that fail to load
 * @throws InvalidInputError (`NOT_A_PROJECT`) when `project` is not a Sluice project
 */
export async function createTestEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const dir = options.database ? null : mkdtempSync(join(tmpdir(), "sluice-test-"));
  const clock = new TestClock();
  const store = openSqliteStore({ path: options.database ?? join(dir!, "sluice.db"), clock, poll: 10 });
  const engine = createEngine({
    captureConsole: false,
    ...options.engine,
    store,
    workflows: options.workflows ?? [],
    worker: { concurrency: options.concurrency ?? 10, poll: 20 },
    scheduler: false,
    inlineSleep: 0,
  });
  let closeProject = () => {};
  const cleanup = async () => {
    await engine.stop({ drain: 2_000 });
    closeProject();
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await engine.start();
    if (options.project) {
      // The loader (esbuild, TypeScript) loads only for a test that loads a project.
      const { Project } = await import("../loader/project.js");
      const { isSluiceProject, NotAProjectError } = await import("../loader/project-marker.js");
      if (!isSluiceProject(options.project)) throw new NotAProjectError(options.project);
      const project = new Project(options.project, engine);
      closeProject = () => project.python.close();
      const report = await project.loadAll();
      if (report.errors.length)
        throw new TestProjectLoadError(
          options.project,
          report.errors.map((e) => `${e.file}: ${e.error.message}`),
        );
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  return new TestEngine(engine, store, clock, cleanup);
}
