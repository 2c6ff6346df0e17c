const WAC = Symbol.for("sluice.wac-workflow.v1");

/** A workflow entry point made by {@link workflow}: callable, and recognised by the loader. */
export type WacWorkflow<A extends unknown[] = any[], R = unknown> = ((...args: A) => Promise<R>) & {
  readonly [WAC]: true;
  /** The orchestration function. */
  readonly fn: (...args: A) => Promise<R> | R;
};

/**
 * Marks an async function as a workflow entry point (seed 000). A module exporting
 * `main = workflow(...)` is a workflow named by its path (`f/data/etl`); a run's JSON
 * payload is mapped to the function's parameters by name.
 * @example
 * export const main = workflow(async (url: string) => {
 *   const data = await task(fetchData)(url);
 *   return await task(transform)(data);
 * });
 */
export function workflow<A extends unknown[], R>(fn: (...args: A) => Promise<R> | R): WacWorkflow<A, R> {
  if (typeof fn !== "function")
    throw new TypeError("workflow() takes the async function that orchestrates the workflow");
  const entry = (async (...args: A) => fn(...args)) as WacWorkflow<A, R>;
  Object.defineProperty(entry, WAC, { value: true });
  Object.defineProperty(entry, "fn", { value: fn });
  return entry;
}

/** True when `value` was made by {@link workflow} (from any copy of the SDK). */
export function isWacWorkflow(value: unknown): value is WacWorkflow {
  return typeof value === "function" && (value as unknown as Record<symbol, unknown>)[WAC] === true;
}
