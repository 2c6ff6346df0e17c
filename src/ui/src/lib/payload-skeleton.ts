/**
 * The Start-a-run form's first payload (pure): an object naming each required parameter of
 * the workflow (or required payload field of a `defineWorkflow`), its value `null` to fill in. Optional parameters are left out, so their
 * defaults apply (a `null` argument would replace a default); without known parameters, `{}`.
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
