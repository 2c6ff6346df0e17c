/**
 * Column lineage of one SELECT (seed 001 "Column-level lineage"): which source columns each
 * output column reads. Pure: it walks the statement as DuckDB's own parser serialized it
 * (`json_serialize_sql`), so no SQL is parsed here. Handled: select lists with aliases,
 * expressions over several columns, `*` (with `EXCLUDE`, `REPLACE`, `RENAME`, `t.*`,
 * `COLUMNS('regex')`) expanded through the schemas the caller knows, joins with table
 * aliases and `USING`, CTEs (also recursive), subqueries in FROM and in expressions
 * (correlated references resolve to the outer query), `VALUES`, set operations (by position or
 * `BY NAME`), aggregates and window functions (their arguments, partitions and orders).
 *
 * Glossary: a **relation** is one item of a FROM clause as the query sees it (an alias and
 * its columns); a **source** is a column of a named table (`table` as written or mapped by
 * the caller, e.g. `ducklake://main/orders`); an output is a **passthrough** when it is a bare
 * column reference to a passthrough column (its value is the source's value, unchanged); an
 * output is **unknown** when a column it reads cannot be pinned to one table: an unqualified
 * name that several relations of unknown schema (or one of them and an earlier select-list
 * alias, or an outer query) may hold. Its sources are then left empty rather than guessed.
 */

/** A column of a table the query reads. */
export interface LineageSource {
  /** The table as the caller names it: an asset URI (`ducklake://main/orders`) or the SQL name (`staging`, `db.t`). */
  readonly table: string;
  readonly column: string;
}

/** One output column and the source columns it is derived from. */
export interface InferredColumn {
  readonly output: string;
  readonly sources: readonly LineageSource[];
  /** The value is a source column unchanged (a bare column reference, possibly renamed). */
  readonly passthrough: boolean;
  /** Its sources cannot be determined (see the glossary); `sources` is then empty and `passthrough` false. */
  readonly unknown?: boolean;
}

/** What the caller knows of a table referenced in the query. */
export interface KnownTable {
  /** Its name in lineage sources. */
  readonly table: string;
  /** Its columns in order, or undefined when unknown (then `*` over it cannot be expanded). */
  readonly columns?: readonly string[];
}

/** A table reference as it appears in the query (`catalog.schema.table`; empty parts are ''). */
export interface TableRef {
  readonly catalog: string;
  readonly schema: string;
  readonly table: string;
}

/** The lineage of a query, with what could not be followed. */
export interface LineageResult {
  readonly columns: InferredColumn[];
  /** Human-readable notes (a `*` over a table of unknown schema, an unsupported node). */
  readonly warnings: string[];
  /** The output list may miss columns: a `*` over a table of unknown schema, or a query node not followed. */
  readonly partial: boolean;
}

type Node = Record<string, unknown>;
type Col = { name: string; sources: LineageSource[]; passthrough: boolean; unknown?: boolean };
type Rel = {
  names: string[];
  columns?: Col[];
  /** The table a column of an unknown-schema relation belongs to ('' for one with no sources, e.g. a table function). */
  open?: string;
  hidden: Set<string>;
};
type Scope = { rels: Rel[]; parent?: Scope; outputs?: Col[] };
type Env = Map<string, Col[]>;

const lc = (s: string) => s.toLowerCase();
const str = (v: unknown) => (typeof v === "string" ? v : "");
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Node | undefined => (v !== null && typeof v === "object" ? (v as Node) : undefined);

function addSources(into: LineageSource[], from: readonly LineageSource[]): void {
  for (const s of from) if (!into.some((x) => x.table === s.table && x.column === s.column)) into.push(s);
}

/** Every base-table reference of a parsed statement (CTE names included: the caller's lookup may just miss them). */
export function tableRefs(tree: unknown): TableRef[] {
  const out: TableRef[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    const o = obj(v);
    if (!o) return;
    if (o.type === "BASE_TABLE" && typeof o.table_name === "string") {
      const ref = { catalog: str(o.catalog_name), schema: str(o.schema_name), table: o.table_name };
      if (!out.some((r) => r.catalog === ref.catalog && r.schema === ref.schema && r.table === ref.table))
        out.push(ref);
    }
    for (const child of Object.values(o)) walk(child);
  };
  walk(tree);
  return out;
}

/**
 * The select-list expressions of `tree` (any query level) that have no name of their own: no
 * alias, not a column reference, not a `*`. DuckDB names such an output after the
 * expression's text, which `json_deserialize_sql` of a one-expression SELECT gives.
 */
export function unnamedExpressions(tree: unknown): Node[] {
  const out: Node[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    const o = obj(v);
    if (!o) return;
    if (o.type === "SELECT_NODE")
      for (const item of arr(o.select_list)) {
        const e = obj(item);
        if (e && !str(e.alias) && e.class !== "COLUMN_REF" && e.class !== "STAR") out.push(e);
      }
    for (const child of Object.values(o)) walk(child);
  };
  walk(tree);
  return out;
}

/** The lineage walker over one statement, with the caller's table lookup. */
class Walker {
  readonly warnings: string[] = [];
  partial = false;
  /** Set while following one output's expression when it reads a column of unknown origin. */
  private tainted = false;
  constructor(
    private readonly lookup: (ref: TableRef) => KnownTable | undefined,
    private readonly expressionNames: ReadonlyMap<unknown, string>,
  ) {}

  query(node: Node | undefined, env: Env, outer?: Scope): Col[] {
    if (!node) return [];
    const local = this.ctes(node, env, outer);
    switch (node.type) {
      case "SELECT_NODE":
        return this.select(node, local, outer);
      case "SET_OPERATION_NODE":
        return this.setOperation(node, local, outer);
      case "RECURSIVE_CTE_NODE": {
        const left = this.query(obj(node.left), local, outer);
        const self = new Map(local).set(lc(str(node.cte_name)), left);
        return this.combine(left, this.query(obj(node.right), self, outer), false);
      }
      default:
        this.warnings.push(`${str(node.type) || "an unknown query node"} is not followed`);
        this.partial = true;
        return [];
    }
  }

  private ctes(node: Node, env: Env, outer?: Scope): Env {
    const entries = arr(obj(node.cte_map)?.map);
    if (entries.length === 0) return env;
    const local = new Map(env);
    for (const e of entries) {
      const entry = obj(e);
      const value = obj(entry?.value);
      const name = lc(str(entry?.key));
      let cols = this.query(obj(obj(value?.query)?.node), local, outer);
      cols = renamed(cols, arr(value?.aliases).map(str));
      local.set(name, cols);
    }
    return local;
  }

  private setOperation(node: Node, env: Env, outer?: Scope): Col[] {
    const left = this.query(obj(node.left), env, outer);
    const right = this.query(obj(node.right), env, outer);
    return this.combine(left, right, String(node.setop_type).endsWith("BY_NAME"));
  }

  private combine(left: Col[], right: Col[], byName: boolean): Col[] {
    if (!byName)
      return left.map((c, i) => {
        const other = right[i];
        const sources = [...c.sources];
        if (other) addSources(sources, other.sources);
        const unknown = c.unknown || other?.unknown;
        return {
          name: c.name,
          sources,
          passthrough: c.passthrough && (other?.passthrough ?? true),
          ...(unknown && { unknown }),
        };
      });
    const out = left.map((c) => ({ ...c, sources: [...c.sources] }));
    for (const r of right) {
      const same = out.find((c) => lc(c.name) === lc(r.name));
      if (same) {
        addSources(same.sources, r.sources);
        same.passthrough = same.passthrough && r.passthrough;
        if (r.unknown) same.unknown = true;
      } else out.push({ ...r, sources: [...r.sources] });
    }
    return out;
  }

  private select(node: Node, env: Env, outer?: Scope): Col[] {
    const scope: Scope = { rels: this.from(obj(node.from_table), env, outer), ...(outer && { parent: outer }) };
    const outputs: Col[] = [];
    scope.outputs = outputs;
    for (const item of arr(node.select_list)) {
      const e = obj(item);
      if (!e) continue;
      if (e.class === "STAR") {
        outputs.push(...this.star(e, scope, env));
        continue;
      }
      const sources: LineageSource[] = [];
      const { value: direct, unknown } = this.followed(() => this.expression(e, scope, env, sources));
      const names = arr(e.column_names).map(str);
      outputs.push({
        name:
          str(e.alias) || (e.class === "COLUMN_REF" ? names[names.length - 1]! : (this.expressionNames.get(e) ?? "")),
        sources,
        passthrough: direct !== undefined && direct.passthrough,
        ...(unknown && { unknown }),
      });
    }
    return outputs;
  }

  /** Runs `fn` (following one output) and says whether it read a column of unknown origin. */
  private followed<T>(fn: () => T): { value: T; unknown: boolean } {
    const saved = this.tainted;
    this.tainted = false;
    try {
      const value = fn();
      return { value, unknown: this.tainted };
    } finally {
      this.tainted = saved;
    }
  }

  private star(e: Node, scope: Scope, env: Env): Col[] {
    const relation = lc(str(e.relation_name));
    const rels = relation ? scope.rels.filter((r) => r.names.includes(relation)) : scope.rels;
    const exclude = new Set(arr(e.exclude_list).map((x) => lc(str(x))));
    for (const q of arr(e.qualified_exclude_list)) exclude.add(lc(str(obj(q)?.column)));
    const replace = new Map(arr(e.replace_list).map((r) => [lc(str(obj(r)?.key)), obj(obj(r)?.value)] as const));
    const rename = new Map(arr(e.rename_list).map((r) => [lc(str(obj(obj(r)?.key)?.column)), str(obj(r)?.value)]));
    const pattern = e.columns === true ? regexOf(obj(e.expr)) : undefined;
    if (e.columns === true && e.expr && !pattern)
      this.warnings.push("COLUMNS(…) with an expression other than a regex string is expanded to every column");
    const out: Col[] = [];
    for (const rel of rels) {
      if (!rel.columns) {
        this.partial = true;
        if (rel.open)
          this.warnings.push(
            `* over ${rel.open} cannot be expanded: its columns are not known; lineage may be partial`,
          );
        continue;
      }
      for (const c of rel.columns) {
        const key = lc(c.name);
        if (exclude.has(key) || (!relation && rel.hidden.has(key))) continue;
        if (pattern && !pattern.test(c.name)) continue;
        const replacement = replace.get(key);
        if (replacement) {
          const sources: LineageSource[] = [];
          const { value: direct, unknown } = this.followed(() => this.expression(replacement, scope, env, sources));
          out.push({ name: c.name, sources, passthrough: direct?.passthrough ?? false, ...(unknown && { unknown }) });
        } else out.push({ ...c, name: rename.get(key) ?? c.name });
      }
    }
    return out;
  }

  private from(node: Node | undefined, env: Env, outer?: Scope): Rel[] {
    if (!node) return [];
    const alias = lc(str(node.alias));
    const aliases = arr(node.column_name_alias).map(str);
    switch (node.type) {
      case "EMPTY":
        return [];
      case "BASE_TABLE": {
        const name = str(node.table_name);
        const cte = !node.schema_name && !node.catalog_name ? env.get(lc(name)) : undefined;
        const names = [alias || lc(name)];
        if (cte) return [{ names, columns: renamed(cte, aliases), hidden: new Set() }];
        const ref = { catalog: str(node.catalog_name), schema: str(node.schema_name), table: name };
        const known = this.lookup(ref);
        const table = known?.table ?? [ref.catalog, ref.schema, ref.table].filter(Boolean).join(".");
        if (!known?.columns) return [{ names, open: table, hidden: new Set() }];
        const columns = known.columns.map((c) => ({ name: c, sources: [{ table, column: c }], passthrough: true }));
        return [{ names, columns: renamed(columns, aliases), hidden: new Set() }];
      }
      case "SUBQUERY": {
        const cols = this.query(obj(obj(node.subquery)?.node), env, outer);
        return [{ names: alias ? [alias] : [], columns: renamed(cols, aliases), hidden: new Set() }];
      }
      case "JOIN": {
        const left = this.from(obj(node.left), env, outer);
        const right = this.from(obj(node.right), env, outer);
        for (const u of arr(node.using_columns)) for (const r of right) r.hidden.add(lc(str(u)));
        return [...left, ...right];
      }
      case "EXPRESSION_LIST": {
        const scope: Scope = { rels: [], ...(outer && { parent: outer }) };
        const rows = arr(node.values).map((row) => arr(row));
        const cols = (rows[0] ?? []).map((_, i) => {
          const sources: LineageSource[] = [];
          const { unknown } = this.followed(() => {
            for (const row of rows) {
              const e = obj(row[i]);
              if (e) this.expression(e, scope, env, sources);
            }
          });
          return { name: `col${i}`, sources, passthrough: false, ...(unknown && { unknown }) };
        });
        return [{ names: alias ? [alias] : [], columns: renamed(cols, aliases), hidden: new Set() }];
      }
      case "TABLE_FUNCTION": {
        const fn = str(obj(node.function)?.function_name) || "a table function";
        this.warnings.push(`${fn}(…) is read without known columns; its columns have no source table`);
        return [{ names: alias ? [alias] : [lc(fn)], open: "", hidden: new Set() }];
      }
      default:
        this.warnings.push(`${str(node.type) || "an unknown FROM item"} is not followed`);
        this.partial = true;
        return [{ names: alias ? [alias] : [], open: "", hidden: new Set() }];
    }
  }

  /** Adds the sources `e` reads to `into`; returns the column when `e` is a bare reference to one. */
  private expression(e: Node, scope: Scope, env: Env, into: LineageSource[]): Col | undefined {
    if (e.class === "COLUMN_REF") {
      const found = resolve(arr(e.column_names).map(str), scope);
      for (const c of found) addSources(into, c.sources);
      if (found.some((c) => c.unknown)) this.tainted = true;
      if (found.length === 0) return undefined;
      return { name: found[0]!.name, sources: [], passthrough: found.every((c) => c.passthrough) };
    }
    if (e.class === "SUBQUERY") {
      for (const c of this.query(obj(obj(e.subquery)?.node), env, scope)) {
        addSources(into, c.sources);
        if (c.unknown) this.tainted = true;
      }
      const child = obj(e.child);
      if (child) this.expression(child, scope, env, into);
      return undefined;
    }
    if (e.class === "LAMBDA") {
      // the lambda's parameters are not columns; its body may still read columns of the query
      const params = lambdaParams(obj(e.lhs));
      const body = obj(e.expr);
      if (body) this.expressionExcept(body, scope, env, into, params);
      return undefined;
    }
    for (const child of Object.values(e)) this.walk(child, scope, env, into);
    return undefined;
  }

  private expressionExcept(e: Node, scope: Scope, env: Env, into: LineageSource[], params: Set<string>): void {
    if (e.class === "COLUMN_REF") {
      const names = arr(e.column_names).map(str);
      if (names.length && params.has(lc(names[0]!))) return;
      this.expression(e, scope, env, into);
      return;
    }
    for (const child of Object.values(e)) {
      if (Array.isArray(child))
        child.forEach((c) => obj(c) && this.expressionExcept(obj(c)!, scope, env, into, params));
      else if (obj(child)) this.expressionExcept(obj(child)!, scope, env, into, params);
    }
  }

  private walk(v: unknown, scope: Scope, env: Env, into: LineageSource[]): void {
    if (Array.isArray(v)) {
      for (const x of v) this.walk(x, scope, env, into);
      return;
    }
    const o = obj(v);
    if (!o) return;
    if (typeof o.class === "string") this.expression(o, scope, env, into);
    else for (const child of Object.values(o)) this.walk(child, scope, env, into);
  }
}

function lambdaParams(lhs: Node | undefined): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    const o = obj(v);
    if (!o) return;
    if (o.class === "COLUMN_REF") for (const n of arr(o.column_names)) out.add(lc(str(n)));
    for (const child of Object.values(o)) walk(child);
  };
  walk(lhs);
  return out;
}

function regexOf(e: Node | undefined): RegExp | undefined {
  const value = obj(e?.value);
  if (e?.class !== "CONSTANT" || typeof value?.value !== "string") return undefined;
  try {
    return new RegExp(value.value);
  } catch {
    return undefined;
  }
}

function renamed(cols: Col[], aliases: readonly string[]): Col[] {
  if (aliases.length === 0) return cols;
  return cols.map((c, i) => (aliases[i] ? { ...c, name: aliases[i]! } : c));
}

function columnOf(rel: Rel, name: string): Col[] {
  if (rel.columns) return rel.columns.filter((c) => lc(c.name) === name);
  if (rel.open === undefined) return [];
  return [{ name, sources: rel.open ? [{ table: rel.open, column: name }] : [], passthrough: true }];
}

/**
 * The columns a reference `[…, table, column]` reads in `scope` (outer scopes for a correlated
 * subquery): a qualified name picks the relation by alias or table name; an unqualified one
 * every relation that has the column (both sides of a `USING` join), else every relation of
 * unknown schema, else an earlier alias of the select list (DuckDB allows that).
 */
function resolve(names: readonly string[], scope: Scope | undefined): Col[] {
  if (!scope || names.length === 0) return [];
  const parts = names.map(lc);
  for (let q = Math.min(parts.length - 1, 3); q >= 1; q--) {
    // [.., table, column, field…]: the relation is named by the part before the column
    const table = parts[q - 1]!;
    const rels = scope.rels.filter((r) => r.names.includes(table));
    if (rels.length) return rels.flatMap((r) => columnOf(r, parts[q]!));
  }
  const column = parts[0]!;
  const known = scope.rels.filter((r) => r.columns?.some((c) => lc(c.name) === column));
  if (known.length) return known.flatMap((r) => columnOf(r, column));
  const open = scope.rels.filter((r) => r.open !== undefined);
  if (open.length) {
    const cols = open.flatMap((r) => columnOf(r, column));
    // one relation of unknown schema holds it, unless another one, an earlier alias or an outer query may
    const alias = scope.outputs?.some((c) => c.name && lc(c.name) === column);
    if (open.length === 1 && !alias && resolve(names, scope.parent).length === 0) return cols;
    return [{ name: column, sources: [], passthrough: false, unknown: true }];
  }
  const earlier = scope.outputs?.find((c) => c.name && lc(c.name) === column);
  if (earlier) return [earlier];
  return resolve(names, scope.parent);
}

/**
 * The column lineage of one parsed SELECT statement (`json_serialize_sql`'s output).
 * `lookup` names a referenced table and gives its columns when known; `outputNames`, the
 * columns the query really returns (from DuckDB), name the outputs the select list leaves
 * unnamed (`sum(x)`), when their count matches; without them, `expressionNames` may name an
 * unnamed select-list expression (a node of `tree`) as DuckDB would (see {@link unnamedExpressions}).
 *
 * @example
 * inferColumnLineage(tree, (r) => ({ table: r.table, columns: ["amount", "tax"] }))
 * // SELECT amount + tax AS total FROM orders → [{ output: "total", sources: [orders.amount, orders.tax], passthrough: false }]
 */
export function inferColumnLineage(
  tree: unknown,
  lookup: (ref: TableRef) => KnownTable | undefined,
  outputNames?: readonly string[],
  expressionNames: ReadonlyMap<unknown, string> = new Map(),
): LineageResult {
  const statement = obj(arr(obj(tree)?.statements)[0]);
  const walker = new Walker(lookup, expressionNames);
  const cols = walker.query(obj(statement?.node), new Map());
  const useNames = outputNames !== undefined && outputNames.length === cols.length;
  if (outputNames && !useNames)
    walker.warnings.push(
      `the query returns ${outputNames.length} column(s) but ${cols.length} were followed; unnamed outputs keep a position name`,
    );
  const columns = cols.map((c, i): InferredColumn => {
    const output = useNames ? outputNames[i]! : c.name || `#${i + 1}`;
    if (!c.unknown) return { output, sources: c.sources, passthrough: c.passthrough };
    walker.warnings.push(
      `the sources of ${output} are unknown: it reads a column that more than one table of unknown schema (or an alias, or an outer query) may hold; qualify it (t.col) or declare it with -- column`,
    );
    return { output, sources: [], passthrough: false, unknown: true };
  });
  return { columns, warnings: walker.warnings, partial: walker.partial };
}
