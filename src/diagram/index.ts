/**
 * Workflow diagram analyser: the DAG of a workflow module's tasks, steps, sleeps, approvals, waits,
 * parallel branches, loops and conditionals, built by parsing its source with the TypeScript parser.
 * Pure data for the web UI (which does the layout). See `README.md` beside this file.
 *
 * @module
 */
export { analyzeWorkflowSource } from "./analyze.js";
export { payloadFields, type PayloadFields } from "./payload-fields.js";
export { DiagramError, WorkflowSyntaxError } from "./errors.js";
export type { WorkflowDiagram } from "./model.js";
export { validateDiagram } from "./validate.js";
