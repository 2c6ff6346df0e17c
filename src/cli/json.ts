/**
 * The `--json` shapes of the CLI: the same shapes the HTTP API returns
 * (`http/views.ts`, documented in docs/API.md), so scripts read one format.
 */
export { logView as logJson, runView as runJson, stepView as stepJson } from "../http/views.js";
