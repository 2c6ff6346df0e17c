/**
 * The engine side of the SDK's asset helpers (`writeS3File`, `getResource`, `datatable`,
 * …): the asset storage of the calling pipeline run (whose writes it records), else the
 * asset storage of the engine's pipeline host (writes from runs that are not pipeline
 * members are stored but fire no cascade). Each write's asset URI is validated before anything is written.
 */
import type { AssetHost } from "../../assets/host.js";
import { resourcePath } from "../../assets/resources.js";
import { checkObjectKey } from "../../assets/object-store.js";
import type { AssetSdkHost } from "../../sdk/windmill/asset-host.js";
import { parseAssetUri } from "../asset-uri.js";
import { datatableWrites } from "../detect-sql.js";
import { mergeColumnLineage, recordLineage } from "./lineage-record.js";
import { codeWriteAuthor } from "./write-author.js";
import { recordMaterialized } from "./materialized-record.js";
import { captureSchema } from "./schema-history.js";
import { currentExecution, type PipelineRunContext } from "./run-context.js";

/** Asset helpers bound to one host and (inside a pipeline run) its run context. */
export class RunAssetSdk implements AssetSdkHost {
  constructor(
    private readonly assets: AssetHost,
    private readonly run: PipelineRunContext | undefined,
  ) {}

  async writeObject(key: string, body: Uint8Array, contentType?: string): Promise<string> {
    checkObjectKey(key);
    const uri = parseAssetUri(`s3://${key}`).uri;
    await this.assets.objects.put(key, body, contentType);
    await this.run?.recordWrite(uri, "writeS3File");
    return key;
  }

  readObject(key: string): Promise<Uint8Array | undefined> {
    return this.assets.objects.get(checkObjectKey(key));
  }

  objectStoreLabel(): string {
    return this.assets.objects.label;
  }

  getResource(path: string, undefinedIfEmpty: boolean): Promise<unknown> {
    return this.assets.resources.get(path, undefinedIfEmpty);
  }

  async setResource(path: string, value: unknown, type: string): Promise<void> {
    const uri = parseAssetUri(`$res:${resourcePath(path)}`).uri;
    await this.assets.resources.set(path, value, type);
    await this.run?.recordWrite(uri, "setResource");
  }

  /**
   * A data-table query; `ATTACH 'ducklake://<lake>' AS x` statements in it make the lake's
   * tables readable as `x.<table>`, with `AT (VERSION => n)` / `AT (TIMESTAMP => t)` time travel.
   */
  async queryDatatable(name: string, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    // Loaded on first use, like the lake SDK: a data-table query runs DuckDB anyway.
    const { attachLakes, extractLakeAttaches } = await import("./runners/sql-lake.js");
    const { sql: text, attaches } = extractLakeAttaches(sql);
    const rows = await this.assets.datatables.query(
      name,
      text,
      params,
      attaches.length === 0
        ? undefined
        : async (conn, valueOf) => {
            const lakes = await attachLakes(conn, this.assets, attaches);
            try {
              return {
                sql: await lakes.rewrite(text, valueOf),
                schemas: [...lakes.aliases.keys()],
                close: lakes.close,
              };
            } catch (err) {
              await lakes.close();
              throw err;
            }
          },
    );
    for (const uri of datatableWrites(name, sql)) await this.run?.recordWrite(uri, "datatable");
    return rows;
  }

  async writeVolumeFile(volume: string, path: string, data: Uint8Array): Promise<void> {
    const uri = parseAssetUri(`volume://${volume}/${path}`).uri;
    await this.assets.volumes.write(volume, path, data);
    await this.run?.recordWrite(uri, "writeVolumeFile");
  }

  readVolumeFile(volume: string, path: string): Promise<Uint8Array | undefined> {
    return this.assets.volumes.read(volume, path);
  }

  volumeDir(volume: string): Promise<string> {
    return this.assets.volumes.dir(volume);
  }

  async lakeRead(
    name: string,
    table: string,
    options: { partition?: string; version?: number; timestamp?: string },
  ): Promise<Record<string, unknown>[]> {
    const { readLakeRows } = await lakeSdk();
    return readLakeRows(this.assets, name, table, options);
  }

  async lakeWrite(
    name: string,
    table: string,
    rows: readonly Record<string, unknown>[],
    options: { mode: "replace" | "merge" | "append"; key?: string; partition?: string },
  ) {
    const uri = parseAssetUri(`ducklake://${name}/${table}`).uri;
    const { writeLakeRows } = await lakeSdk();
    // named by run and call order, so a retry's append finds what an earlier attempt committed
    const author = this.run && codeWriteAuthor(this.run.runId, this.run.nextLakeWrite(), table, options.partition);
    const { result, columns: schema } = await writeLakeRows(this.assets, name, table, rows, {
      ...options,
      ...(author && { author }),
    });
    await this.run?.recordWrite(uri, "ducklake", {
      ...(result.partition !== undefined && { partition: result.partition }),
    });
    if (this.run) {
      // The same state a `// materialize` write records: the slice written, and the schema version.
      await recordMaterialized(this.run.store, result, this.run.runId, this.run.member.path);
      await captureSchema(this.run.store, uri, schema, {
        snapshot_id: result.snapshot_id,
        run: this.run.runId,
        at: Date.now(),
      });
    }
    // Code has no SQL to infer lineage from: its `// column` lines for the columns it wrote are the lineage.
    const declared = this.run?.member.analyzed.annotations.columns ?? [];
    const written = new Set(Object.keys(rows[0] ?? {}).map((c) => c.toLowerCase()));
    const columns = declared.filter((c) => written.has(c.output.toLowerCase()));
    if (this.run && columns.length)
      await recordLineage(this.run.store, {
        asset: uri,
        script: this.run.member.path,
        run: this.run.runId,
        snapshot_id: result.snapshot_id,
        at: Date.now(),
        columns: mergeColumnLineage([], columns),
        warnings: [],
      });
    return result;
  }

  partition(): string | undefined {
    return this.run?.partition;
  }
}

/** The lake helpers, loaded on first use: every worker installs this SDK host, few use a lake. */
function lakeSdk(): Promise<typeof import("./lake-sdk.js")> {
  return import("./lake-sdk.js");
}

/**
 * The asset helpers for the calling code of one pipeline host's engine: bound to the
 * pipeline run it belongs to (found in `runs` by its execution), else the host's storage
 * unbound (`undefined` while the storage is still opening).
 */
export function assetSdkFor(
  assets: AssetHost | null,
  runs: WeakMap<object, PipelineRunContext>,
): AssetSdkHost | undefined {
  const exec = currentExecution();
  const run = exec ? runs.get(exec) : undefined;
  if (run) return new RunAssetSdk(run.assets, run);
  return assets ? new RunAssetSdk(assets, undefined) : undefined;
}
