/**
 * `sluice/tako`: Tako's JavaScript workflow API (seed 002), also published as the
 * `tako.sh` package so seed code imports it unchanged.
 *
 * @example
 * import { defineWorkflow, signal, TakoError } from "tako.sh"; // or "sluice/tako"
 */
import { installEnvironmentConnector } from "./entry-runtime.js";

export * from "./sdk/tako/index.js";

installEnvironmentConnector();
