/**
 * The `--json` shapes of the CLI: the same shapes the HTTP API returns
 * (`http/views.ts`, documented in docs/API.md), so scripts read one format. The CLI reads the
 * database directly (whoever runs it can read the stacks there), so errors keep their stacks.
 */
import type { RunRecord, StepRecord } from "../store/types.js";
import type { ApiRun, ApiStep } from "../http/api-types.js";
import { runView, stepView } from "../http/views.js";

export { logView as logJson } from "../http/views.js";

/** A run as the API's JSON, with its full error. */
export const runJson = (r: RunRecord): ApiRun => runView(r, "full");

/** A checkpoint as the API's JSON, with its full error. */
export const stepJson = (s: StepRecord): ApiStep => stepView(s, "full");
