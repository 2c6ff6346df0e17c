/**
 * The contract between the asset helpers of the SDK (`writeS3File`, `getResource`,
 * `datatable`, …) and the engine side that implements them (the pipeline runtime). The
 * helpers ask the engine of the calling code ({@link currentRuntime}: the engine running
 * the current execution, else the process's started engine) for its asset storage
 * (`SluiceRuntime.assetSdk`); an engine has one when pipelines are attached to it.
 * Two engines in one process never see each other's storage.
 */
import { SluiceError } from "../errors.js";
import { currentRuntime } from "../runtime.js";

/** What the asset helpers need, bound to the calling run (if any). */
export interface AssetSdkHost {
  /** Writes an object; returns its key. Inside a pipeline run the write is recorded as `s3://<key>`. */
  writeObject(key: string, body: Uint8Array, contentType?: string): Promise<string>;
  /** An object's bytes, or undefined when absent. */
  readObject(key: string): Promise<Uint8Array | undefined>;
  /** Where objects live, for messages: a directory, or `s3://bucket/prefix/`. */
  objectStoreLabel(): string;
  getResource(path: string, undefinedIfEmpty: boolean): Promise<unknown>;
  setResource(path: string, value: unknown, type: string): Promise<void>;
  /** Runs parameterised SQL on a data table; inside a pipeline run, written tables are recorded. */
  queryDatatable(name: string, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  writeVolumeFile(volume: string, path: string, data: Uint8Array): Promise<void>;
  readVolumeFile(volume: string, path: string): Promise<Uint8Array | undefined>;
  volumeDir(volume: string): Promise<string>;
  /** Reads a lake table (`ducklake://<name>/<table>`), optionally one partition and at a snapshot (`version` or `timestamp`). */
  lakeRead(
    name: string,
    table: string,
    options: { partition?: string; version?: number; timestamp?: string },
  ): Promise<Record<string, unknown>[]>;
  /** One managed write of rows into a lake table; inside a pipeline run it is recorded as `ducklake://<name>/<table>`. */
  lakeWrite(
    name: string,
    table: string,
    rows: readonly Record<string, unknown>[],
    options: { mode: "replace" | "merge" | "append"; key?: string; partition?: string },
  ): Promise<{ asset: string; rows: number; snapshot_id: number; partition?: string }>;
  /** The partition of the calling pipeline run, if it has one. */
  partition(): string | undefined;
}

/** Storage helpers were called with no Sluice asset storage in this process. */
export class AssetStorageUnavailableError extends SluiceError {
  constructor(what: string) {
    super(
      "ASSET_HOST_MISSING",
      `${what} needs Sluice's asset storage: run the script with sluice dev / sluice worker (or attach pipelines to your engine with attachPipelines)`,
    );
  }
}

/** The host for the calling code. @throws AssetStorageUnavailableError when its engine has no asset storage */
export function requireAssetHost(what: string): AssetSdkHost {
  const host = currentRuntime()?.assetSdk?.();
  if (!host) throw new AssetStorageUnavailableError(what);
  return host;
}
