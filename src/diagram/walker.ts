/**
 * The walker's shared state and the node-emitting verbs used by the statement and expression
 * walkers: primitives (with checkpoint keys), structural nodes, conditional forks with a merge, and
 * inlining of a function body (helpers, IIFEs, callbacks).
 *
 * Control flow is threaded as a {@link Frontier}: each walk takes the open exits before the code and
 * returns the open exits after it (empty when the code always returns or throws).
 *
 * @module
 */
import ts from "typescript";
import type { Bindings, HelperFunction } from "./bindings.js";
import { FlowIndex } from "./flow.js";
import { GraphBuilder, type Exit, type Frontier, type NodeSpec } from "./graph.js";
import { KeyCounter, type KeySnapshot } from "./keys.js";
import type { DiagramNode, DiagramWarning, NodeKind, PrimitiveKind, WarningCode } from "./model.js";
import { spanOf, startOf } from "./source-text.js";

/** Deepest nesting of inlined functions (helpers calling helpers, IIFEs, callbacks). */
const MAX_INLINE_DEPTH = 12;
/** Once the diagram has this many nodes, helpers are no longer inlined (they could multiply it). */
const MAX_INLINED_NODES = 2000;

/** Where the code being walked sits: its group, and where jumps out of it go. */
export interface Scope {
  /** Innermost group node (loop or dynamic parallel) the emitted nodes belong to. */
  readonly parent?: string;
  /** The code may run more than once per run. */
  readonly repeated: boolean;
  /** Helper functions being inlined, outermost first (for `via`). */
  readonly via: readonly string[];
  /** Function bodies being inlined (recursion guard). */
  readonly inlining: readonly HelperFunction[];
  /** Collector for `break` exits (innermost loop or switch). */
  readonly breaks?: Exit[];
  /** Collector for `continue` exits (innermost loop). */
  readonly continues?: Exit[];
  /** Collector for throws caught by the innermost `try` with a `catch`. */
  readonly catches?: Exit[];
  /** Collector for `return` exits of an inlined function (absent: returns end the workflow). */
  readonly returns?: Exit[];
  /** Key-counter state at each `return` of an inlined function, joined where the call continues. */
  readonly returnKeys?: KeySnapshot[];
}

/** A durable primitive to emit. */
export interface PrimitiveSpec {
  /** Node kind. */
  kind: PrimitiveKind;
  /** Diagram label. */
  label: string;
  /** Name the key is built from. */
  name: string;
  /** False when the name is computed or guessed (the key is then approximate). */
  exact: boolean;
  /** Source node (for positions). */
  at: ts.Node;
  /** Kind-specific fields (`options`, `taskType`, `duration`, …). */
  extra?: Partial<DiagramNode>;
}

/** One arm of a conditional fork. */
export interface Arm {
  /** Label of the edge from the branch node into the arm. */
  label: string;
  /** Walks the arm from `entry`; returns its exits. */
  walk: (entry: Frontier) => Frontier;
}

/** Walks one statement or expression; supplied by the statement/expression modules. */
export type WalkFn<N extends ts.Node> = (w: Walker, node: N, frontier: Frontier, scope: Scope) => Frontier;

/** Shared walker state plus the verbs that emit nodes. */
export class Walker {
  /** Memoised flow questions. */
  readonly flow: FlowIndex;
  /** The graph being built. */
  readonly graph = new GraphBuilder();
  /** Checkpoint key allocation. */
  readonly keys = new KeyCounter();
  /** Exits that go straight to `end` (returns, uncaught throws, bail/fail). */
  readonly terminals: Exit[] = [];
  /** Warnings so far. */
  readonly warnings: DiagramWarning[] = [];
  private readonly warned = new Set<string>();

  constructor(
    /** Name resolution for the module. */
    readonly bindings: Bindings,
    private readonly walkStatement: WalkFn<ts.Statement>,
    private readonly walkNode: WalkFn<ts.Node>,
  ) {
    this.flow = new FlowIndex(bindings);
  }

  /** Walks one statement. */
  statement(statement: ts.Statement, frontier: Frontier, scope: Scope): Frontier {
    return this.walkStatement(this, statement, frontier, scope);
  }

  /** Walks statements in order; code after a statement that never continues is reported and skipped. */
  statements(list: readonly ts.Statement[], frontier: Frontier, scope: Scope): Frontier {
    let current = frontier;
    for (const statement of list) {
      if (current.length === 0) {
        if (this.flow.hasPrimitive(statement)) {
          this.warn(
            "UNREACHABLE_CODE",
            "this code can never run (an earlier return or throw always leaves first), so it is left out of the diagram",
            statement,
          );
        }
        continue;
      }
      current = this.statement(statement, current, scope);
    }
    return current;
  }

  /** Walks an expression (or any node inside one) in evaluation order. */
  expression(node: ts.Node, frontier: Frontier, scope: Scope): Frontier {
    return this.walkNode(this, node, frontier, scope);
  }

  /** Emits a durable primitive with its checkpoint key. */
  primitive(frontier: Frontier, scope: Scope, spec: PrimitiveSpec): { node: DiagramNode; frontier: Frontier } {
    const allocated = this.keys.next(spec.name);
    const approximate = scope.repeated || allocated.uncertain || !spec.exact;
    return this.graph.append(frontier, {
      kind: spec.kind,
      label: spec.label,
      key: allocated.key,
      ...spanOf(spec.at),
      ...this.placement(scope),
      ...(approximate ? { approximateKey: true as const } : {}),
      ...spec.extra,
    });
  }

  /** Emits a structural node (branch, merge, loop, parallel, join, try, catch, return, throw, …). */
  structural(
    frontier: Frontier,
    scope: Scope,
    kind: Exclude<NodeKind, PrimitiveKind>,
    label: string,
    at: ts.Node,
    extra?: Partial<DiagramNode>,
  ): { node: DiagramNode; frontier: Frontier } {
    return this.graph.append(frontier, { kind, label, ...spanOf(at), ...this.placement(scope), ...extra });
  }

  /**
   * Emits a conditional fork: a `branch` node, each arm walked from a labelled edge with the key
   * counter reset per arm, then a `merge` when more than one exit continues.
   */
  branch(frontier: Frontier, scope: Scope, label: string, at: ts.Node, arms: readonly Arm[]): Frontier {
    const { node } = this.structural(frontier, scope, "branch", label, at);
    const base = this.keys.snapshot();
    const ends: KeySnapshot[] = [];
    const exits: Exit[] = [];
    for (const arm of arms) {
      this.keys.restore(base);
      exits.push(...arm.walk([{ from: node.id, label: arm.label }]));
      ends.push(this.keys.snapshot());
    }
    this.keys.join(ends);
    return this.merge(exits, node.id, at, scope);
  }

  /** Joins several exits into one `merge` node closing `closes`; one exit or none passes through. */
  merge(exits: Frontier, closes: string, at: ts.Node, scope: Scope): Frontier {
    if (exits.length <= 1) return exits;
    const end = spanOf(at);
    return this.graph.append(exits, {
      kind: "merge",
      label: "merge",
      line: end.endLine,
      column: end.endColumn,
      closes,
      ...this.placement(scope),
    }).frontier;
  }

  /**
   * Walks a function body in place (a helper called by name, an IIFE, a callback). Its `return`s
   * continue after the call; `break`/`continue` do not cross it. Recursion is cut with a warning.
   */
  inline(fn: HelperFunction, name: string | undefined, frontier: Frontier, scope: Scope): Frontier {
    if (fn.body === undefined) return frontier;
    if (scope.inlining.includes(fn)) {
      this.warn(
        "RECURSIVE_HELPER",
        `${name ?? "a function"} calls itself; its recursive call is drawn once, not expanded`,
        fn,
      );
      return frontier;
    }
    if (scope.inlining.length > MAX_INLINE_DEPTH || this.graph.nodes.length >= MAX_INLINED_NODES) {
      this.warn(
        "INLINE_LIMIT",
        `${name ?? "this function"} is not expanded: the diagram is already ${scope.inlining.length > MAX_INLINE_DEPTH ? `${MAX_INLINE_DEPTH} helpers deep` : `${MAX_INLINED_NODES} nodes large`}; call tasks from fewer layers of helpers for a complete diagram`,
        fn,
      );
      return frontier;
    }
    const returns: Exit[] = [];
    const returnKeys: KeySnapshot[] = [];
    const inner: Scope = {
      ...(scope.parent === undefined ? {} : { parent: scope.parent }),
      repeated: scope.repeated,
      via: name === undefined ? scope.via : [...scope.via, name],
      inlining: [...scope.inlining, fn],
      ...(scope.catches === undefined ? {} : { catches: scope.catches }),
      returns,
      returnKeys,
    };
    const tail = ts.isBlock(fn.body)
      ? this.statements(fn.body.statements, frontier, inner)
      : this.expression(fn.body, frontier, inner);
    // Every way out of the function (falling off the end, each return) continues after the call.
    const outs = tail.length > 0 ? [...returnKeys, this.keys.snapshot()] : returnKeys;
    if (outs.length > 0) this.keys.join(outs);
    return [...tail, ...returns];
  }

  /** Records a warning once per code and position. */
  warn(code: WarningCode, message: string, at?: ts.Node): void {
    const position = at === undefined ? undefined : startOf(at);
    const id = `${code}@${position?.line ?? 0}:${position?.column ?? 0}`;
    if (this.warned.has(id)) return;
    this.warned.add(id);
    this.warnings.push({ code, message, ...position });
  }

  private placement(scope: Scope): Partial<NodeSpec> {
    return {
      ...(scope.parent === undefined ? {} : { parent: scope.parent }),
      ...(scope.repeated ? { repeated: true as const } : {}),
      ...(scope.via.length === 0 ? {} : { via: [...scope.via] }),
    };
  }
}
