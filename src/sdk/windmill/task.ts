import { InvalidInputError } from "../errors.js";
import { requireHost } from "./host.js";
import type { TaskOptions } from "./types.js";

type AnyFn = (...args: any[]) => any;

/** A callable task wrapper: each call is a child run. */
export type TaskFn<F extends AnyFn> = ((...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>) & {
  readonly _is_task: true;
  readonly _task_path: string;
};

/** A task that dispatches a script or workflow by path, with named arguments. */
export type PathTask<R = any> = ((args?: Record<string, unknown>) => Promise<R>) & {
  readonly _is_task: true;
  readonly _task_path: string;
};

/**
 * Wraps a function so that each call runs as a separate child run with its own logs,
 * attempts and timeline entry (seed 000). The function must be a module-scope
 * function of the workflow's module (exported or not) or imported into it.
 * @example
 * const a = await task(double)(5);
 * const b = await task("f/my_folder/heavy_script", double, { timeout: 600, tag: "gpu" })(42);
 */
export function task<F extends AnyFn>(fn: F, options?: TaskOptions): TaskFn<F>;
export function task<F extends AnyFn>(path: string, fn: F, options?: TaskOptions): TaskFn<F>;
export function task<F extends AnyFn>(a: string | F, b?: F | TaskOptions, c?: TaskOptions): TaskFn<F> {
  const path = typeof a === "string" ? a : undefined;
  const fn = (typeof a === "function" ? a : b) as F;
  const options = validateTaskOptions((typeof a === "function" ? b : c) as TaskOptions | undefined);
  if (typeof fn !== "function")
    throw new InvalidInputError(
      "task() needs a function: task(fn), task(fn, options), task(path, fn) or task(path, fn, options)",
    );
  if (!fn.name && !path)
    throw new InvalidInputError(
      "task() needs a named module-scope function (or a path): give the arrow function a name, e.g. const double = async (n) => n * 2",
    );
  const call = (...args: unknown[]) => requireHost("task()").callTask({ kind: "function", fn, path }, options, args);
  return Object.assign(call, { _is_task: true as const, _task_path: path ?? fn.name }) as TaskFn<F>;
}

/**
 * A task that runs an existing script (a module with a `main` export) by its path
 * relative to the project root, or `./x.ts` for a module in the workflow's `__mod/` folder.
 * @example const data = await taskScript("f/data/extract", { timeout: 3600 })({ url });
 */
export function taskScript<R = any>(path: string, options?: TaskOptions): PathTask<R> {
  return pathTask<R>("script", path, options);
}

/**
 * A task that runs another workflow by path.
 * @example const result = await taskFlow("f/etl/pipeline", { concurrency_limit: 5 })({ input: data });
 */
export function taskFlow<R = any>(path: string, options?: TaskOptions): PathTask<R> {
  return pathTask<R>("flow", path, options);
}

function pathTask<R>(kind: "script" | "flow", path: string, options?: TaskOptions): PathTask<R> {
  if (typeof path !== "string" || path.trim() === "")
    throw new InvalidInputError(`task${kind === "script" ? "Script" : "Flow"}() needs a path, e.g. "f/data/extract"`);
  const opts = validateTaskOptions(options);
  const call = (args: Record<string, unknown> = {}) =>
    requireHost(`task${kind === "script" ? "Script" : "Flow"}()`).callTask({ kind, path }, opts, args) as Promise<R>;
  return Object.assign(call, { _is_task: true as const, _task_path: path }) as PathTask<R>;
}

/** @throws InvalidInputError naming the bad option */
export function validateTaskOptions(options: TaskOptions | undefined): TaskOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null)
    throw new InvalidInputError("task options must be an object such as { timeout: 600, tag: 'gpu' }");
  const positive = (name: keyof TaskOptions) => {
    const v = options[name];
    if (v !== undefined && (typeof v !== "number" || !(v > 0) || !Number.isFinite(v))) {
      throw new InvalidInputError(`task option ${name} must be a positive number, got ${JSON.stringify(v)}`, {
        code: "INVALID_TASK_OPTIONS",
      });
    }
  };
  positive("timeout");
  positive("cache_ttl");
  positive("concurrency_time_window_s");
  if (
    options.concurrency_limit !== undefined &&
    (!Number.isInteger(options.concurrency_limit) || options.concurrency_limit < 1)
  ) {
    throw new InvalidInputError(
      `task option concurrency_limit must be a whole number >= 1, got ${JSON.stringify(options.concurrency_limit)}`,
      { code: "INVALID_TASK_OPTIONS" },
    );
  }
  if (options.priority !== undefined && !Number.isInteger(options.priority)) {
    throw new InvalidInputError(
      `task option priority must be a whole number, got ${JSON.stringify(options.priority)}`,
      { code: "INVALID_TASK_OPTIONS" },
    );
  }
  for (const k of ["tag", "concurrency_key"] as const) {
    if (options[k] !== undefined && (typeof options[k] !== "string" || options[k] === "")) {
      throw new InvalidInputError(`task option ${k} must be a non-empty string`, { code: "INVALID_TASK_OPTIONS" });
    }
  }
  return options;
}
