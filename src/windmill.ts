/**
 * `sluice/windmill`: Windmill's workflows-as-code API (seed 000) and the pipeline SDK
 * (seed 001), also published as the `windmill-client` package so seed code imports it
 * unchanged. These calls run inside a workflow or script that Sluice executes.
 *
 * @example
 * import { workflow, task, step } from "windmill-client"; // or "sluice/windmill"
 */
export * from "./sdk/windmill/index.js";
