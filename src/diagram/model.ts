/**
 * The workflow diagram data model: what {@link analyzeWorkflowSource} returns.
 *
 * Glossary:
 * - **node**: one box in the diagram. Durable primitives (`task`, `step`, `sleep`, `approval`, `wait`)
 *   carry the checkpoint `key` the runtime will use; structural nodes (`branch`, `merge`, `parallel`,
 *   `join`, `loop`, `try`, `catch`) shape the control flow; `start`/`end` bracket the whole workflow.
 * - **edge**: control flow from one node to the next. Edges form a DAG: every node is reachable from
 *   `start`, and `end` is reachable from every node. There are no back-edges.
 * - **group**: loops and dynamic fan-outs (`parallel(items, fn)`, `items.map(fn)`) are groups. Their
 *   body nodes name the group node in `parent`; a UI draws the group as a box around its children
 *   (ELK compound nodes, dagre `setParent`). Repetition is implied by the group, never drawn as a cycle.
 *
 * Everything here is plain JSON: `JSON.parse(JSON.stringify(diagram))` deep-equals the diagram.
 *
 * @module
 */

/** A JSON value, as found in an options object literal. Non-literal expressions become {@link ExprValue}. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * How a non-literal expression inside an options literal is represented: its source text.
 * @example `{ timeout: 60 * 10 }` gives `{ timeout: { $expr: "60 * 10" } }`.
 */
export interface ExprValue {
  /** The expression's source text, as written. */
  $expr: string;
}

/** Every kind of diagram node. */
export type NodeKind =
  | "start"
  | "end"
  | "task"
  | "step"
  | "sleep"
  | "approval"
  | "wait"
  | "parallel"
  | "join"
  | "branch"
  | "merge"
  | "loop"
  | "try"
  | "catch"
  | "return"
  | "throw"
  | "bail"
  | "fail";

/** Node kinds that are durable primitives and so carry a checkpoint `key`. */
export type PrimitiveKind = "task" | "step" | "sleep" | "approval" | "wait";

/** What a task node dispatches to. */
export type TaskType = "function" | "script" | "flow";

/** A 1-based source position. */
export interface SourcePosition {
  /** 1-based line. */
  line: number;
  /** 1-based column (UTF-16 code units, as editors count). */
  column: number;
}

/** One node of the diagram. Optional fields are omitted (never `undefined`) when they do not apply. */
export interface DiagramNode extends SourcePosition {
  /**
   * Stable id: `start`, `end`, `<kind>:<key>` for primitives (e.g. `task:fetchData#2`), and
   * `<kind>:<n>` for structural nodes numbered per kind in source order (e.g. `branch:1`, `merge:1`).
   * The same source always gives the same ids; a rare collision gets a `~2` suffix.
   */
  id: string;
  /** What the node is. */
  kind: NodeKind;
  /** Human label: task function name or script path, step name, condition text, `Promise.all`, … */
  label: string;
  /**
   * Checkpoint key the runtime will use (primitives only): the explicit name where the API takes one,
   * else the task's function name (or script/flow path); a name used again gets `name#2`, `name#3`, …
   * counted in source order along each path.
   */
  key?: string;
  /** Last position of the node's source expression or statement (1-based, inclusive line). */
  endLine?: number;
  /** Column just after the node's source expression or statement (1-based). */
  endColumn?: number;
  /** Id of the enclosing group node (a `loop`, or a dynamic `parallel`). */
  parent?: string;
  /** The node may run more than once per run (inside a loop or a dynamic fan-out). */
  repeated?: true;
  /** The runtime key may differ from `key` (loops, fan-outs, branches that use a name unevenly, computed names). */
  approximateKey?: true;
  /** Task nodes: what the task dispatches to. */
  taskType?: TaskType;
  /** Task nodes: the task function's name, when there is one. */
  functionName?: string;
  /** Task nodes: the explicit script or flow path (`task("f/x", fn)`, `taskScript("f/x")`). */
  path?: string;
  /** The options object literal, when one is written inline (task options, approval form, concurrency, …). */
  options?: { [key: string]: JsonValue };
  /** Sleep nodes: the duration argument and its unit (`s` for `sleep(n)`, `ms` for `ctx.sleep`). */
  duration?: { value: JsonValue; unit: "s" | "ms" };
  /** `parallel` nodes: true for a fan-out over a runtime list (`parallel(items, fn)`, `items.map(fn)`). */
  dynamic?: boolean;
  /** `merge`/`join` nodes: the id of the `branch`/`try`/`parallel` node they close. */
  closes?: string;
  /** Names of the same-file helper functions this node was inlined from, outermost first. */
  via?: string[];
}

/** One control-flow edge. */
export interface DiagramEdge {
  /** Source node id. */
  from: string;
  /** Target node id. */
  to: string;
  /**
   * Why the flow takes this edge: `true`/`false` (if, ternary, `&&`, `||`), `case "x"`/`default`
   * (switch), `try`/`catch`, `throw` (a throw caught by a catch), `body`/`done` (loops), `break`,
   * `continue`, `return`, `error` (an uncaught throw to `end`). Absent for plain sequence.
   */
  label?: string;
}

/** Stable warning codes. */
export type WarningCode =
  | "NO_WORKFLOW"
  | "MULTIPLE_WORKFLOWS"
  | "PLAIN_FUNCTION_ENTRY"
  | "DYNAMIC_KEY"
  | "ANONYMOUS_TASK"
  | "UNRESOLVED_TASK"
  | "NESTED_PRIMITIVE"
  | "RECURSIVE_HELPER"
  | "INLINE_LIMIT"
  | "UNREACHABLE_CODE"
  | "LABELED_JUMP"
  | "UNKNOWN_CALLBACK";

/** Something the analyser could not represent exactly; the diagram is still usable. */
export interface DiagramWarning extends Partial<SourcePosition> {
  /** Stable machine-readable code. */
  code: WarningCode;
  /** What was approximated or skipped, and how to make it exact. */
  message: string;
}

/** Which API the workflow is written against. */
export type WorkflowDialect = "windmill" | "tako" | "function";

/** The workflow entry the diagram was built from. */
export interface WorkflowEntry extends SourcePosition {
  /** The exported binding (`main`, `default`) or the `defineWorkflow` name. */
  name: string;
  /** `windmill` for `workflow(fn)`, `tako` for `defineWorkflow(name, { handler })`, `function` for a bare exported `main`. */
  dialect: WorkflowDialect;
  /** Parameter names of the entry function, as written (destructured ones as their source text). */
  params: string[];
  /** `defineWorkflow` options written inline besides the handler, e.g. `{ retries: 4 }`. */
  options?: { [key: string]: JsonValue };
}

/** The analyser's output: pure JSON, no layout. */
export interface WorkflowDiagram {
  /** Format version of this structure. */
  version: 1;
  /** The file name given to the analyser. */
  fileName: string;
  /** The workflow entry found, or `null` when the module has none (then the diagram is `start → end`). */
  workflow: WorkflowEntry | null;
  /** Nodes in source order, `start` first and `end` last. */
  nodes: DiagramNode[];
  /** Edges, a DAG from `start` to `end`. */
  edges: DiagramEdge[];
  /** What was approximated or skipped. */
  warnings: DiagramWarning[];
}
