/**
 * `sluice lake snapshots|tables|schema|rollback <lake>[/<table>]`: the project's DuckLake
 * lakes (`ducklake://<lake>`), opened where the engine keeps them (`lake/project-lake.ts`:
 * catalog `.sluice/lakes/<lake>.sqlite` or a schema of the project's Postgres database of
 * `--db`/`SLUICE_DATABASE_URL`; data in `.sluice/lakes/<lake>/` or the project's bucket); `sluice lake lineage
 * <lake>/<table>`: the column lineage its latest managed write recorded in the project's store;
 * `sluice lake sweep <lake>`: the orphan sweep (files no snapshot names, from writes that failed
 * or were killed) and the staging folders of writers that are gone. The reads (`snapshots`,
 * `tables`, `schema`) open the catalog read-only and create or change nothing. `rollback` also
 * opens the project's store, first, and brings Sluice's records of the table along
 * (`pipeline/runtime/rollback-records.ts`).
 */
import { join } from "node:path";
import type { Command } from "commander";
import { resolveAssetConfig } from "../../assets/config.js";
import { lakeCatalogOf } from "../../assets/host.js";
import { reportChanges } from "../../lake/changes.js";
import { readColumns } from "../../lake/catalog-read.js";
import { duckdbTypeOf } from "../../lake/column-types.js";
import { LakeError } from "../../lake/errors.js";
import {
  listProjectLakes,
  openProjectLake,
  openProjectLakeForRead,
  projectLakeExists,
  type ProjectLakes,
} from "../../lake/project-lake.js";
import type { LakeReader } from "../../lake/reader.js";
import { sweepOrphans } from "../../lake/orphans.js";
import { rollbackTable } from "../../lake/rollback.js";
import { sweepStaleStaging } from "../../lake/staging-owner.js";
import type { SnapshotRef } from "../../lake/types.js";
import type { LakeWriter } from "../../lake/writer.js";
import { PipelineRuntimeError } from "../../pipeline/runtime/errors.js";
import { lineageOf } from "../../pipeline/runtime/lineage-record.js";
import { followRollback, RollbackRecordsError } from "../../pipeline/runtime/rollback-records.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { storeLocationOf, storeReady } from "../../store/open.js";
import { json, type CommandContext } from "../command.js";
import { table as textTable } from "../format.js";
import { parseCount, parseDurationOption } from "../options.js";
import {
  DB_OPTION,
  DIR_OPTION,
  resolveProject,
  withEngine,
  withReadEngine,
  wouldCreateStrayDatabase,
} from "../project.js";
import { renderLineage, renderRollbackRecords } from "./lake-lineage.js";

interface Target {
  lake: string;
  table?: string;
  /** Where the project keeps its lakes (catalog place and data location), as its engine opens them. */
  lakes: ProjectLakes;
}

/**
 * The lake (and table) named by `text` in the project of `--dir`/`--db`: its lakes are where
 * the engine keeps them (SQLite files, or the project's Postgres database; data in the local
 * folder or the bucket of `sluice.json` `assets`). @throws LakeError LAKE_NOT_FOUND when the lake does not exist
 */
async function target(
  cx: CommandContext,
  opts: { dir?: string; db?: string },
  text: string,
  needTable: boolean,
): Promise<Target> {
  const m = /^(?:ducklake:\/\/)?([^/]+)(?:\/([^/]+))?$/.exec(text);
  if (!m)
    throw new InvalidInputError(`"${text}" is not a lake or lake/table; write e.g. main or main/orders`, {
      code: "INVALID_LAKE_TARGET",
    });
  if (needTable && !m[2])
    throw new InvalidInputError(`"${text}" names a lake, not a table; write <lake>/<table>, e.g. main/orders`, {
      code: "INVALID_LAKE_TARGET",
    });
  const project = resolveProject(cx.io, opts.dir, opts.db);
  const lakes: ProjectLakes = {
    config: resolveAssetConfig(project.root, project.config.assets, cx.io.env),
    lakeCatalog: lakeCatalogOf(storeLocationOf(project.dbPath)),
  };
  if (!(await projectLakeExists(lakes, m[1]!))) {
    const known = await listProjectLakes(lakes);
    const where =
      lakes.lakeCatalog.kind === "postgres" ? `the database ${project.dbLabel}` : join(lakes.config.dataDir, "lakes");
    throw new LakeError(
      "LAKE_NOT_FOUND",
      `lake ${m[1]} does not exist in ${project.root} (catalogs in ${where}; ${known.length ? `lakes there: ${known.join(", ")}` : "no lake yet"}); check the name, or materialize a table into ducklake://${m[1]}/<table> first`,
    );
  }
  return { lake: m[1]!, ...(m[2] && { table: m[2] }), lakes };
}

function atRef(value: string | undefined): SnapshotRef {
  return value === undefined ? { kind: "latest" } : { kind: "version", snapshotId: parseCount(value, "--at") };
}

/** Run `fn` on the target's lake, opened by the engine's own code, closing it afterwards. */
async function withLake<T>(t: Target, fn: (lake: LakeWriter) => Promise<T>): Promise<T> {
  const lake = await openProjectLake(t.lakes, t.lake);
  try {
    return await fn(lake);
  } finally {
    await lake.close();
  }
}

/** Run `fn` on the target's lake opened read-only (nothing is created or changed), closing it afterwards. */
async function readLake<T>(t: Target, fn: (lake: LakeReader) => Promise<T>): Promise<T> {
  const lake = await openProjectLakeForRead(t.lakes, t.lake);
  try {
    return await fn(lake);
  } finally {
    await lake.close();
  }
}

/** Registers `sluice lake …`. */
export function registerLake(program: Command, cx: CommandContext): void {
  const lake = program.command("lake").description("inspect and roll back DuckLake tables (ducklake://<lake>)");

  lake
    .command("snapshots")
    .description("list a lake's snapshots, newest last")
    .argument("<lake>", "lake name, e.g. main")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const t = await target(cx, opts, text, false);
      const snaps = await readLake(t, (l) => l.snapshots());
      const rows = snaps.map((s) => ({
        snapshot_id: s.snapshotId,
        time: s.time,
        schema_version: s.schemaVersion,
        changes: reportChanges(s.changes),
        author: s.author,
        message: s.commitMessage,
      }));
      if (opts.json) return json(cx, rows);
      cx.io.stdout(
        `${textTable(
          ["snapshot", "time", "schema", "changes", "message"],
          rows.map((r) => [
            String(r.snapshot_id),
            r.time,
            String(r.schema_version),
            Object.entries(r.changes)
              .map(([k, v]) => `${k}: ${v.join(", ")}`)
              .join("; "),
            r.message ?? "",
          ]),
        )}\n`,
      );
    });

  lake
    .command("tables")
    .description("list the tables of a lake at a snapshot")
    .argument("<lake>", "lake name, e.g. main")
    .option("--at <snapshot>", "snapshot id (default: latest)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const t = await target(cx, opts, text, false);
      const rows = await readLake(t, async (l) => {
        const ref = atRef(opts.at);
        const snapshot = (await l.snapshot(ref)).snapshotId;
        const out = [];
        for (const x of await l.tables(ref)) {
          const [count] = await l.query(x.name, ref, "SELECT count(*) AS n FROM {table}");
          out.push({
            table: x.name,
            table_id: x.table.tableId,
            rows: count!.n,
            files: (await l.files(x.name, ref)).length,
            snapshot,
          });
        }
        return out;
      });
      if (opts.json) return json(cx, rows);
      cx.io.stdout(
        rows.length
          ? `${textTable(
              ["table", "id", "rows", "files"],
              rows.map((r) => [r.table, String(r.table_id), String(r.rows), String(r.files)]),
            )}\n`
          : "no tables\n",
      );
    });

  lake
    .command("schema")
    .description("show a table's columns at a snapshot, or every column version with --history")
    .argument("<lake/table>", "e.g. main/orders")
    .option("--at <snapshot>", "snapshot id (default: latest)")
    .option("--history", "every column version with its snapshot range")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const t = await target(cx, opts, text, true);
      type SchemaRow = {
        column_id: number;
        name: string;
        type: string;
        begin_snapshot?: number;
        end_snapshot?: number | null;
      };
      const rows: SchemaRow[] = await readLake(t, async (l): Promise<SchemaRow[]> => {
        const ref = atRef(opts.at);
        if (!opts.history)
          return (await l.columns(t.table!, ref)).map((c) => ({
            column_id: c.columnId,
            name: c.name,
            type: duckdbTypeOf(c.type),
          }));
        const found = await l.tableAt(t.table!, (await l.snapshot(ref)).snapshotId);
        return (await readColumns(l.db, found.table.tableId))
          .sort((a, b) => a.beginSnapshot - b.beginSnapshot || a.order - b.order)
          .map((c) => ({
            column_id: c.columnId,
            name: c.name,
            type: duckdbTypeOf(c.type),
            begin_snapshot: c.beginSnapshot,
            end_snapshot: c.endSnapshot,
          }));
      });
      if (opts.json) return json(cx, rows);
      const headers = opts.history ? ["id", "column", "type", "from", "until"] : ["id", "column", "type"];
      cx.io.stdout(
        `${textTable(
          headers,
          rows.map((r) => {
            const base = [String(r.column_id), r.name, r.type];
            return opts.history
              ? [
                  ...base,
                  String(r.begin_snapshot),
                  r.end_snapshot === null || r.end_snapshot === undefined ? "current" : String(r.end_snapshot),
                ]
              : base;
          }),
        )}\n`,
      );
    });

  lake
    .command("lineage")
    .description("show which source columns each column of a materialized table comes from")
    .argument("<lake/table>", "e.g. main/orders")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--at <snapshot>", "the lineage as of this lake snapshot (default: the latest)")
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const snapshot = opts.at === undefined ? undefined : parseCount(opts.at, "--at");
      const m = /^(?:ducklake:\/\/)?([A-Za-z0-9_-]+)\/([A-Za-z0-9_.]+)$/.exec(text);
      if (!m)
        throw new InvalidInputError(`"${text}" is not a lake table; write <lake>/<table>, e.g. main/orders`, {
          code: "INVALID_LAKE_TARGET",
        });
      const uri = `ducklake://${m[1]}/${m[2]}`;
      const record = await withReadEngine(cx.io, opts, (engine) => lineageOf(engine.store, uri, snapshot));
      if (!record)
        throw new PipelineRuntimeError(
          "LINEAGE_NOT_FOUND",
          snapshot === undefined
            ? `no column lineage is recorded for ${uri}; it is recorded by a managed \`-- materialize ${uri}\` SQL run, so run that script first`
            : `no column lineage is recorded for ${uri} at or before snapshot ${snapshot}; see the snapshots with sluice lake snapshots`,
        );
      if (opts.json) return json(cx, record);
      cx.io.stdout(renderLineage(record));
    });

  lake
    .command("sweep")
    .description(
      "remove the lake's data files no snapshot names (left by writes that failed or were killed) and the staging folders of writers that are gone",
    )
    .argument("<lake>", "lake name, e.g. main")
    .option("--older-than <duration>", "only files older than this, so writes still in flight keep theirs", "1h")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const graceMs = parseDurationOption(opts.olderThan, "--older-than");
      const t = await target(cx, opts, text, false);
      const orphans = await withLake(t, (l) => sweepOrphans(l.reader, { graceMs }));
      const staging = sweepStaleStaging();
      if (opts.json) return json(cx, { lake: t.lake, orphans, staging });
      cx.io.stdout(
        `${[
          `removed ${orphans.length} orphan file(s) of lake ${t.lake} older than ${opts.olderThan}`,
          ...orphans.map((f) => `  ${f}`),
          `removed ${staging.length} staging folder(s) of writers that are gone`,
          ...staging.map((f) => `  ${f}`),
        ].join("\n")}\n`,
      );
    });

  lake
    .command("rollback")
    .description(
      "make a new snapshot in which the table equals its state at an older snapshot; Sluice's records of the table (partitions written, schema, column lineage) follow it",
    )
    .argument("<lake/table>", "e.g. main/orders")
    .requiredOption("--to <snapshot>", "the snapshot whose content to restore")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (text: string, opts) => {
      const to = parseCount(opts.to, "--to");
      const t = await target(cx, opts, text, true);
      const name = `${t.lake}/${t.table}`;
      // A lake with no Sluice database beside it (written by other tools, or one copied alone)
      // has no records to follow the rollback; none is created for them.
      const noStore = wouldCreateStrayDatabase(resolveProject(cx.io, opts.dir, opts.db));
      const rolled = async () => withLake(t, (writer) => rollbackTable(writer.db, writer.reader, t.table!, to));
      // Otherwise the store is opened first: one that cannot be opened fails the command before the lake changes.
      const { snapshot, records } = noStore
        ? {
            snapshot: await rolled(),
            records: { partitions: [], restored: [], schemaRestored: null, lineageRestored: null },
          }
        : await withEngine(cx.io, opts, async (engine) => {
            await storeReady(engine.store);
            const made = await rolled();
            const rollback = { uri: `ducklake://${name}`, to, snapshot: made };
            try {
              return { snapshot: made, records: await followRollback(engine.store, rollback) };
            } catch (err) {
              throw new RollbackRecordsError(rollback, name, err);
            }
          });
      if (opts.json) return json(cx, { table: name, restored: to, snapshot_id: snapshot, records });
      cx.io.stdout(
        `rolled ${name} back to snapshot ${to}: new snapshot ${snapshot}\n${renderRollbackRecords(records)}`,
      );
    });
}
