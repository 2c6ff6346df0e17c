/**
 * The Start-a-run form's first payload (pure): an object naming each required parameter of
 * the workflow (or required payload field of a `defineWorkflow`), its value `null` to fill in. Optional parameters are left out, so their
 * defaults apply (a `null` argument would replace a default); without known parameters, `{}`.
 * Before a run starts, {@link unfilledRequired} refuses a payload whose required field is still
 * `null` (the placeholder) or missing.
 */
import type { ApiWorkflow } from "../../../http/api-types";

/** The payload text the form starts with, pretty-printed JSON. */
export function payloadSkeleton(params: ApiWorkflow["params"]): string {
  if (!params || params.required.length === 0) return "{}";
  return JSON.stringify(Object.fromEntries(params.required.map((n) => [n, null])), null, 2);
}

/** The expected fields as the form lists them, e.g. `orderId (required), limit`; null when unknown. */
export function expectedFields(params: ApiWorkflow["params"]): string | null {
  if (!params) return null;
  if (params.names.length === 0) return "none (it takes no parameters)";
  return params.names.map((n) => (params.required.includes(n) ? `${n} (required)` : n)).join(", ");
}

/**
 * Why the form must not start a run with `payload`: a required field still `null` (the
 * skeleton's placeholder) or missing, named with what to do; null when nothing is missing or
 * the fields are unknown.
 * @example unfilledRequired({ orderId: null }, { names: ["orderId"], required: ["orderId"] })
 * // 'orderId is required: replace its null with a value (e.g. {"orderId": "…"}) before starting the run.'
 */
export function unfilledRequired(payload: unknown, params: ApiWorkflow["params"]): string | null {
  if (!params || params.required.length === 0) return null;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload))
    return `The payload must be a JSON object with ${params.required.join(", ")}.`;
  const values = payload as Record<string, unknown>;
  const nulls = params.required.filter((n) => Object.hasOwn(values, n) && values[n] === null);
  const missing = params.required.filter((n) => !Object.hasOwn(values, n) || values[n] === undefined);
  const example = (n: string) => `{${JSON.stringify(n)}: "…"}`;
  if (nulls.length === 1 && missing.length === 0)
    return `${nulls[0]} is required: replace its null with a value (e.g. ${example(nulls[0]!)}) before starting the run.`;
  if (missing.length === 1 && nulls.length === 0)
    return `${missing[0]} is required: add it with a value (e.g. ${example(missing[0]!)}) before starting the run.`;
  if (nulls.length + missing.length === 0) return null;
  const parts = [
    nulls.length ? `${nulls.join(", ")} still null` : "",
    missing.length ? `${missing.join(", ")} missing` : "",
  ].filter(Boolean);
  return `Required fields need values before the run starts: ${parts.join("; ")}.`;
}
