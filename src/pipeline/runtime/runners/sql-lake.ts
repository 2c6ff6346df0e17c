/**
 * DuckLake in DuckDB SQL scripts, without the ducklake extension: `ATTACH 'ducklake://<name>'
 * AS <alias>` statements are taken out of the script and become views of the lake's tables
 * (see `lake/attach.ts`), and a managed `// materialize` writes the script's trailing SELECT
 * into its lake table through Sluice's DuckLake writer, running the `// data_test`s on the
 * written slice before the snapshot is published.
 *
 * A `// partitioned` materialization stores the run's partition in a column `_partition`
 * (VARCHAR) that the table is DuckLake-partitioned by, so a slice's replace, merge or append
 * touches only that partition's files.
 */
import { readFile } from "node:fs/promises";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { AssetHost } from "../../../assets/host.js";
import { runStatements, sqlString } from "../../../assets/duckdb.js";
import { attachLakeViews } from "../../../lake/attach.js";
import { ident } from "../../../lake/scan-plan.js";
import { DataTestsFailedError, runSliceTests, type TestOutcome } from "../../../lake/data-tests.js";
import { duckdbTypeOf } from "../../../lake/column-types.js";
import { LakeError } from "../../../lake/errors.js";
import { jsonRows } from "../../../assets/duckdb-json.js";
import { rewriteTimeTravel } from "../../../lake/time-travel.js";
import { holdProjectLake, projectLakeExists, withProjectLake } from "../../../lake/project-lake.js";
import type { Held } from "../../../assets/shared-opens.js";
import type { LakeWriter } from "../../../lake/writer.js";
import type { MaterializeAnnotation, DataTest } from "../../annotation-types.js";
import { slashCommentsToSql, splitSqlStatements } from "../../materialize-body.js";
import { PARTITION_COLUMN } from "../../partition-column.js";
import type { LineageResult } from "../../column-lineage.js";
import { lineageThrough } from "../../lineage-through.js";
import { PipelineRuntimeError } from "../errors.js";
import { dataTestFile } from "../data-test-file.js";
import { inferSelectLineage, inferTempLineage } from "./sql-lineage.js";
import { committedBy } from "./append-retry.js";
import { runAuthor } from "../write-author.js";

/** A `ducklake://` ATTACH taken out of a script. */
export interface LakeAttach {
  readonly lake: string;
  readonly alias: string;
}

const ATTACH =
  /^ATTACH\s+(?:DATABASE\s+)?(?:IF\s+NOT\s+EXISTS\s+)?'ducklake:\/\/([A-Za-z0-9_-]+)\/?'(?:\s+AS\s+("?)([A-Za-z_][A-Za-z0-9_]*)\2)?(?:\s*\([^)]*\))?$/is;

/** The script without its `ducklake://` ATTACH statements, and those attaches. */
export function extractLakeAttaches(sql: string): { sql: string; attaches: LakeAttach[] } {
  const statements = splitSqlStatements(sql);
  const attaches: LakeAttach[] = [];
  const kept: string[] = [];
  for (const s of statements) {
    const m = ATTACH.exec(s.text.trim());
    if (m) attaches.push({ lake: m[1]!, alias: m[3] ?? m[1]! });
    else kept.push(s.text);
  }
  if (attaches.length === 0) return { sql, attaches };
  return { sql: kept.join(";\n"), attaches };
}

/** The lakes a script attached, open while it runs. */
export interface AttachedLakes {
  /**
   * The script with `AT (VERSION => …)` / `AT (TIMESTAMP => …)` on attached tables rewritten (see
   * `lake/time-travel.ts`); `valueOf` gives the parameters an AT clause names (`$v`, `$1`).
   */
  rewrite(sql: string, valueOf?: (name: string) => unknown): Promise<string>;
  /** Each attached alias and the lake it names. */
  readonly aliases: ReadonlyMap<string, string>;
  /**
   * After the script: @throws LakeError `LAKE_ATTACH_READ_ONLY` when it created, replaced or
   * dropped something under an alias (`CREATE TABLE dl.t AS …`), which went to a scratch schema
   * of the session and never into the lake.
   */
  checkUnchanged(): Promise<void>;
  close(): Promise<void>;
}

/** How to write a lake, for errors about writes through an ATTACH. */
const WRITE_HINT =
  "an ATTACH of a ducklake:// lake is read-only in Sluice (it runs without the DuckLake extension): write the table with `-- materialize ducklake://<lake>/<table>` (the script's trailing SELECT) or from TypeScript or Python with the ducklake() helpers";

/** The session's objects under the aliases: `alias.name` → its kind and SQL. */
async function aliasObjects(conn: DuckDBConnection, aliases: readonly string[]): Promise<Map<string, string>> {
  if (aliases.length === 0) return new Map();
  const list = aliases.map(sqlString).join(", ");
  const rows = jsonRows(
    await conn.runAndReadAll(
      `SELECT schema_name AS s, table_name AS n, 'table' AS k FROM duckdb_tables() WHERE database_name = 'memory' AND schema_name IN (${list}) ` +
        `UNION ALL SELECT schema_name, view_name, 'view: ' || sql FROM duckdb_views() WHERE NOT internal AND database_name = 'memory' AND schema_name IN (${list})`,
    ),
  );
  // time travel's views (`t@3`) are Sluice's, made by the rewrite before the script runs
  return new Map(
    rows.filter((r) => !String(r.n).includes("@")).map((r) => [`${String(r.s)}.${String(r.n)}`, String(r.k)]),
  );
}

/**
 * Create the views of every attached lake on `conn`. A lake that does not exist is not created
 * (its alias has no tables, so reading one fails naming it; a `materialize` creates the lake).
 */
export async function attachLakes(
  conn: DuckDBConnection,
  host: AssetHost,
  attaches: readonly LakeAttach[],
): Promise<AttachedLakes> {
  const open = new Map<string, Held<LakeWriter>>();
  const aliases = new Map<string, string>();
  const close = async () => {
    for (const l of open.values()) await l.release();
  };
  const lakeOf = (alias: string) => {
    const held = open.get(alias);
    if (!held)
      throw new LakeError(
        "LAKE_NOT_FOUND",
        `lake ${aliases.get(alias)} does not exist yet (nothing was ever materialized into it), so ${alias} has no tables to read at any version`,
      );
    return held.opened.reader;
  };
  try {
    for (const a of attaches) {
      await open.get(a.alias)?.release();
      open.delete(a.alias);
      aliases.set(a.alias, a.lake);
      if (!(await projectLakeExists(host, a.lake))) {
        await conn.run(`CREATE SCHEMA IF NOT EXISTS ${ident(a.alias)}`);
        continue;
      }
      const lake = await holdProjectLake(host, a.lake);
      open.set(a.alias, lake);
      await attachLakeViews(conn, lake.opened.reader, a.alias);
    }
  } catch (err) {
    await close();
    throw err;
  }
  const names = [...aliases.keys()];
  const before = await aliasObjects(conn, names);
  return {
    async rewrite(sql, valueOf) {
      if (aliases.size === 0 || !/\bAT\s*\(/i.test(sql)) return sql;
      const all = new Set(aliases.keys());
      const out: string[] = [];
      for (const s of splitSqlStatements(sql)) out.push(await rewriteTimeTravel(conn, s.text, all, lakeOf, valueOf));
      return out.join(";\n");
    },
    aliases,
    async checkUnchanged() {
      if (names.length === 0) return;
      const after = await aliasObjects(conn, names);
      const changed = [
        ...[...after]
          .filter(([k, v]) => before.get(k) !== v)
          .map(([k]) => `${before.has(k) ? "replaced" : "created"} ${k}`),
        ...[...before.keys()].filter((k) => !after.has(k)).map((k) => `dropped ${k}`),
      ];
      if (changed.length)
        throw new LakeError(
          "LAKE_ATTACH_READ_ONLY",
          `the script ${changed.join(", ")}, which changed a scratch copy in this run and never the lake (nothing was written to it); ${WRITE_HINT}`,
        );
    },
    close,
  };
}

/** DuckDB's error for a write into a view of an attached lake, with how to write the lake instead. */
export function explainAttachWrite(err: unknown, attached: AttachedLakes): unknown {
  const message = (err as Error)?.message ?? "";
  if (attached.aliases.size === 0 || !/is not an? table|Cannot (insert|update|delete)/i.test(message)) return err;
  return new LakeError("LAKE_ATTACH_READ_ONLY", `${message}; ${WRITE_HINT}`, { cause: err });
}

/** What a managed materialization returns (and records as the asset's state). */
interface MaterializeResult {
  readonly asset: string;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly partition?: string;
  readonly tests?: readonly TestOutcome[];
}

/** Everything {@link materialize} needs. */
export interface MaterializeRequest {
  readonly host: AssetHost;
  readonly annotation: MaterializeAnnotation;
  readonly tests: readonly DataTest[];
  /** The script after staging (setup statements + trailing SELECT). */
  readonly sql: string;
  readonly partitioned: boolean;
  readonly partition: string | undefined;
  readonly script: string;
  readonly runId: string;
  readonly valueOf: (name: string) => unknown;
  /** The attached `ducklake://` aliases and their lakes (they name lineage sources). */
  readonly lakes: ReadonlyMap<string, string>;
}

async function referencedSelect(host: AssetHost, asset: string): Promise<string> {
  const m = /^ducklake:\/\/([A-Za-z0-9_-]+)\/([^/]+)$/.exec(asset);
  if (!m)
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `relationships can reference ducklake://<name>/<table> tables only, not ${asset}`,
    );
  return withProjectLake(host, m[1]!, async (lake) => (await lake.reader.scan(m[2]!)).sql);
}

/** A materialization's summary and the table's columns after it (for the schema history). */
export interface Materialized {
  readonly summary: MaterializeResult;
  readonly columns: ReadonlyArray<{ name: string; type: string }>;
  /** The column lineage of the trailing SELECT (before `// column` annotations are merged). */
  readonly lineage: LineageResult;
}

/** The SQL of a custom data test `// data_test <path>`: `<root>/<path>.sql` (or `<path>` itself when it ends in .sql), inside the project. */
async function loadTestScript(root: string, path: string): Promise<string> {
  const file = dataTestFile(root, path);
  if (file === undefined)
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `data test ${path} is outside the project; name a .sql file under the project folder`,
    );
  try {
    return slashCommentsToSql(await readFile(file, "utf8"));
  } catch (err) {
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `data test ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); create ${file} with one SELECT returning the offending rows of the view \`slice\``,
      { cause: err },
    );
  }
}

async function selectLineage(
  conn: DuckDBConnection,
  setup: readonly string[],
  select: string,
  lakes: ReadonlyMap<string, string>,
): Promise<LineageResult> {
  try {
    const names = jsonRows(await conn.runAndReadAll("DESCRIBE __sluice_materialize")).map((r) => String(r.column_name));
    const temps = await inferTempLineage(conn, setup, lakes);
    return lineageThrough(await inferSelectLineage(conn, select, lakes, names), temps);
  } catch (err) {
    // lineage is metadata: a query it cannot follow never fails the write
    return {
      columns: [],
      warnings: [`column lineage could not be inferred: ${(err as Error).message}`],
      partial: true,
    };
  }
}

/**
 * A `// partitioned` slice gets Sluice's `_partition` column added; a SELECT that produces one
 * itself (most often `*` over a partitioned table, which has it) is refused naming the fix.
 */
async function refuseReservedColumn(conn: DuckDBConnection, script: string): Promise<void> {
  const names = jsonRows(await conn.runAndReadAll("DESCRIBE __sluice_materialize")).map((r) => String(r.column_name));
  const own = names.find((n) => n.toLowerCase() === PARTITION_COLUMN);
  if (own === undefined) return;
  throw new PipelineRuntimeError(
    "PARTITION_COLUMN_RESERVED",
    `${script}: the SELECT produces a column named ${own}, which Sluice adds itself to every slice of a -- partitioned materialization (a * over a partitioned table brings that table's ${PARTITION_COLUMN} along); leave it out (SELECT * EXCLUDE (${PARTITION_COLUMN}) …) or rename it (AS another_name)`,
  );
}

/** Run the setup statements, write the trailing SELECT into the lake table, test it before publishing. */
export async function materialize(conn: DuckDBConnection, req: MaterializeRequest): Promise<Materialized> {
  const statements = splitSqlStatements(req.sql);
  const last = statements.pop();
  if (!last) throw new PipelineRuntimeError("SQL_FAILED", `${req.script} has no trailing SELECT to materialize`);
  if (statements.length) await runStatements(conn, statements.map((s) => s.text).join(";\n"), req.valueOf);
  await runStatements(conn, `CREATE OR REPLACE TEMP TABLE __sluice_materialize AS ${last.text}`, req.valueOf);
  const lineage = await selectLineage(
    conn,
    statements.map((s) => s.text),
    last.text,
    req.lakes,
  );
  if (req.partitioned && req.partition === undefined) {
    throw new PipelineRuntimeError(
      "SQL_PARTITION_MISSING",
      `${req.script} is -- partitioned but this run has no partition; run it with a partition (sluice pipeline run … --partition 2026-05-16)`,
    );
  }
  if (req.partitioned) await refuseReservedColumn(conn, req.script);
  const [lakeName, table] = req.annotation.target.path.split("/") as [string, string];
  let outcomes: TestOutcome[] = [];
  try {
    return await withProjectLake(req.host, lakeName, (lake) => writeMaterialized(lake));
  } finally {
    await conn.run("DROP TABLE IF EXISTS __sluice_materialize");
  }

  async function writeMaterialized(lake: LakeWriter): Promise<Materialized> {
    const partitioned = req.partitioned && req.partition !== undefined;
    const source = partitioned
      ? `SELECT *, CAST('${req.partition!.replace(/'/g, "''")}' AS VARCHAR) AS ${PARTITION_COLUMN} FROM __sluice_materialize`
      : "SELECT * FROM __sluice_materialize";
    // a retry of a run whose append committed returns that commit instead of appending again
    const earlier = req.annotation.strategy === "append" ? await committedBy(lake, runAuthor(req.runId)) : undefined;
    const result = earlier
      ? { snapshotId: earlier.snapshotId, rows: earlier.rows }
      : await lake.write(conn, {
          table,
          source,
          mode: req.annotation.strategy,
          ...(req.annotation.key && { key: req.annotation.key }),
          ...(partitioned && { partition: { [PARTITION_COLUMN]: req.partition! } }),
          ...(req.tests.length && {
            audit: async (a) => {
              outcomes = await runSliceTests(
                a.conn,
                a.relation,
                req.tests,
                (asset) => referencedSelect(req.host, asset),
                (path) => loadTestScript(req.host.config.root, path),
              );
              if (outcomes.some((o) => !o.passed)) throw new DataTestsFailedError(outcomes);
            },
          }),
          author: runAuthor(req.runId),
          commitMessage: req.script,
        });
    const columns = (await lake.reader.columns(table, { kind: "version", snapshotId: result.snapshotId })).map((c) => ({
      name: c.name,
      type: duckdbTypeOf(c.type),
    }));
    return {
      summary: {
        asset: req.annotation.target.uri,
        rows: result.rows,
        snapshot_id: result.snapshotId,
        ...(partitioned && { partition: req.partition! }),
        ...(outcomes.length && { tests: outcomes }),
      },
      columns,
      lineage,
    };
  }
}
