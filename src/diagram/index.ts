/**
 * Workflow diagram analyser: the DAG of a workflow module's tasks, steps, sleeps, approvals, waits,
 * parallel branches, loops and conditionals, built by parsing its source with the TypeScript parser.
 * Pure data for the web UI (which does the layout). See `README.md` beside this file.
 *
 * @module
 */
export { analyzeWorkflowSource, DEFAULT_FILE_NAME } from "./analyze.js";
export { DiagramError, WorkflowSyntaxError, type SyntaxProblem } from "./errors.js";
export { APPROVAL_KEY, SLEEP_KEY } from "./primitive-calls.js";
export type {
  DiagramEdge,
  DiagramNode,
  DiagramWarning,
  ExprValue,
  JsonValue,
  NodeKind,
  PrimitiveKind,
  SourcePosition,
  TaskType,
  WarningCode,
  WorkflowDialect,
  WorkflowDiagram,
  WorkflowEntry,
} from "./model.js";
export { validateDiagram } from "./validate.js";
