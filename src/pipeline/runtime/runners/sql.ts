/**
 * DuckDB SQL scripts, run in-process with `@duckdb/node-api`: `{partition}` replaced by
 * the run's partition (a validated value of letters, digits and `-_:./T+`), `-- $name
 * (type)` arguments bound as parameters, asset URIs mapped to files (see `sql-assets.ts`),
 * statements run in order; the result is the last statement's rows (at most
 * {@link MAX_RESULT_ROWS}). Writes (`COPY … TO`, data table tables) are recorded from the
 * script's detected outputs when it succeeds.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { runStatements, withDuckDb } from "../../../assets/duckdb.js";
import { AssetError } from "../../../assets/errors.js";
import { LakeError } from "../../../lake/errors.js";
import type { AssetHost } from "../../../assets/host.js";
import { PARTITION_TOKEN } from "../../asset-uri.js";
import { slashCommentsToSql } from "../../materialize-body.js";
import { mergeColumnLineage, recordLineage } from "../lineage-record.js";
import { captureSchema } from "../schema-history.js";
import { recordMaterialized } from "../materialized-record.js";
import type { MemberScript } from "../catalog.js";
import type { ScriptRunner } from "../definition.js";
import { PipelineRuntimeError } from "../errors.js";
import type { PipelineRunContext } from "../run-context.js";
import { coerceSqlArgument, parseSqlArguments } from "./sql-args.js";
import { stageSqlAssets } from "./sql-assets.js";
import { markManualTarget, manualTargetChanged } from "./manual-materialize.js";
import { attachLakes, explainAttachWrite, extractLakeAttaches, materialize } from "./sql-lake.js";

/** Key-value prefix of a materialized asset's state (`<prefix><uri> <partition>` → the run's summary). */
export { MATERIALIZED_PREFIX } from "../materialized-record.js";

/** Rows of the last statement returned as the run's result. */
const MAX_RESULT_ROWS = 1_000;
const SAFE_PARTITION = /^[A-Za-z0-9_\-:./T+]+$/;

/** Replace `{partition}` with the run's partition. @throws PipelineRuntimeError when there is none or it is unsafe */
export function substituteSqlPartition(sql: string, partition: string | undefined, script: string): string {
  if (!sql.includes(PARTITION_TOKEN)) return sql;
  if (partition === undefined) {
    throw new PipelineRuntimeError(
      "SQL_PARTITION_MISSING",
      `${script} uses {partition} but this run has no partition; run it with a partition argument (sluice pipeline run … --partition 2026-05-16) or from a partitioned upstream`,
    );
  }
  if (!SAFE_PARTITION.test(partition)) {
    throw new PipelineRuntimeError(
      "SQL_ARGUMENT_INVALID",
      `partition ${JSON.stringify(partition)} cannot be placed in SQL text (only letters, digits and - _ : . / T + are allowed there); declare -- $partition (text) and use $partition instead of {partition}`,
    );
  }
  return sql.split(PARTITION_TOKEN).join(partition);
}

/** A runner for a DuckDB SQL member. */
export function sqlRunner(assets: () => Promise<AssetHost>, member: MemberScript): ScriptRunner {
  const declared = parseSqlArguments(member.source);
  return {
    async run(ctx: PipelineRunContext, args: Record<string, unknown> | unknown[]): Promise<unknown> {
      const named = Array.isArray(args) ? {} : args;
      const host = await assets();
      const values: Record<string, unknown> = {};
      for (const a of declared) values[a.name] = coerceSqlArgument(a, named[a.name]);
      const lakes = extractLakeAttaches(
        substituteSqlPartition(slashCommentsToSql(member.source), ctx.partition, member.path),
      );
      const sql = lakes.sql;
      const s3Args = declared.filter((a) => a.type === "s3object" && typeof values[a.name] === "string");
      for (const a of s3Args) {
        const key = values[a.name] as string;
        const local = host.objects.localPath?.(key);
        if (!local)
          throw new PipelineRuntimeError(
            "SQL_ARGUMENT_INVALID",
            `argument $${a.name} (s3object) needs the local object store; with a bucket, write the path as a 's3://…' literal instead`,
          );
        values[a.name] = local;
      }
      const staged = await stageSqlAssets(sql, host);
      const valueOf = (name: string): unknown => {
        if (!(name in values))
          throw new PipelineRuntimeError(
            "SQL_ARGUMENT_INVALID",
            `$${name} is used in ${member.path} but not declared; add a line \`-- $${name} (text)\` (or another type)`,
          );
        return values[name];
      };
      const managed =
        member.analyzed.annotations.materialize?.mode === "managed"
          ? member.analyzed.annotations.materialize
          : undefined;
      try {
        const runScriptSql = async (
          conn: DuckDBConnection,
          text: string,
          lakeAliases: ReadonlyMap<string, string>,
        ): Promise<unknown> => {
          if (managed) {
            const {
              summary: result,
              columns,
              lineage,
            } = await materialize(conn, {
              host,
              annotation: managed,
              tests: member.analyzed.annotations.dataTests,
              sql: text,
              partitioned: member.analyzed.annotations.partitioned !== undefined,
              partition: ctx.partition,
              script: member.path,
              runId: ctx.runId,
              valueOf,
              lakes: lakeAliases,
            });
            await recordMaterialized(ctx.store, result, ctx.runId, member.path);
            const version = await captureSchema(ctx.store, result.asset, columns, {
              snapshot_id: result.snapshot_id,
              run: ctx.runId,
              at: Date.now(),
            });
            await recordLineage(ctx.store, {
              asset: result.asset,
              script: member.path,
              run: ctx.runId,
              snapshot_id: result.snapshot_id,
              at: Date.now(),
              columns: mergeColumnLineage(lineage.columns, member.analyzed.annotations.columns),
              warnings: lineage.warnings,
            });
            for (const w of lineage.warnings) ctx.log("warn", `column lineage of ${result.asset}: ${w}`);
            ctx.log(
              "info",
              `materialized ${result.rows} row(s) into ${result.asset}${result.partition ? ` partition ${result.partition}` : ""} at snapshot ${result.snapshot_id} (schema version ${version})`,
            );
            return result;
          }
          return runStatements(conn, text, valueOf, MAX_RESULT_ROWS + 1);
        };
        const manual =
          member.analyzed.annotations.materialize?.mode === "manual"
            ? await markManualTarget(host, member.analyzed.annotations.materialize.target)
            : undefined;
        const rows = await withDuckDb(staged.files, async (conn) => {
          const attached = await attachLakes(conn, host, lakes.attaches);
          try {
            let out: unknown;
            try {
              out = await runScriptSql(conn, await attached.rewrite(staged.sql, valueOf), attached.aliases);
            } catch (err) {
              throw explainAttachWrite(err, attached);
            }
            await attached.checkUnchanged();
            return out;
          } finally {
            await attached.close();
          }
        });
        await staged.finish();
        if (manual) {
          if (await manualTargetChanged(host, manual)) await ctx.recordWrite(manual.uri, "materialize manual");
          else
            ctx.log(
              "warn",
              `${manual.uri} was not recorded as written: no snapshot made during this run created or changed ${manual.table} (\`-- materialize manual\` records only a write that happened), so nothing downstream runs`,
            );
        }
        if (!Array.isArray(rows)) return rows;
        if (rows.length > MAX_RESULT_ROWS) {
          ctx.log(
            "warn",
            `the result has more than ${MAX_RESULT_ROWS} rows; only the first ${MAX_RESULT_ROWS} are kept as the run's result`,
          );
          return rows.slice(0, MAX_RESULT_ROWS);
        }
        return rows;
      } catch (err) {
        if (err instanceof PipelineRuntimeError || err instanceof AssetError || err instanceof LakeError) throw err;
        throw new PipelineRuntimeError("SQL_FAILED", `${member.path}: ${(err as Error).message}`, { cause: err });
      } finally {
        await staged.cleanup();
      }
    },
  };
}
