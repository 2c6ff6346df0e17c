/**
 * Opening a project's lake `ducklake://<name>` where the project keeps it: the SQLite
 * catalog `.sluice/lakes/<name>.sqlite`, or — when the project's store is Postgres — schema
 * `<store schema>_lake_<name>` of the project's database, so every server shares it. Data
 * files are under `.sluice/lakes/<name>/`, or with `"lakes": {"data": "s3"}` in the
 * project's bucket at `s3://<bucket>/<prefix>lakes/<name>/` (read through a local cache,
 * `.sluice/lakes/<name>.cache/`, kept within `"lakes": {"cacheMaxMB": …}`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AssetConfig } from "../assets/config.js";
import type { AssetHost } from "../assets/host.js";
import { lakePaths } from "./locate.js";
import { type RemoteFiles, s3Files } from "./remote-files.js";
import { type LakeWriter, openLakeForWrite, openPostgresLake } from "./writer.js";

/** Where lake `name` keeps its data files, and the object store access they need. Pure but for the S3 client it creates lazily. */
function projectLakeData(config: AssetConfig, name: string): { dataPath: string; remote?: RemoteFiles } {
  const paths = lakePaths(config.dataDir, name);
  const s3 = config.s3;
  if (config.lakeData !== "s3" || s3.kind !== "s3") return { dataPath: paths.data };
  return {
    dataPath: `s3://${s3.bucket}/${s3.prefix}lakes/${name}/`,
    remote: s3Files({
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      ...(s3.endpoint && { endpoint: s3.endpoint }),
      cacheDir: join(config.dataDir, "lakes", `${name}.cache`),
      cacheMaxBytes: config.lakeCacheMaxBytes,
    }),
  };
}

/** Open (creating if needed) lake `name` of the project behind `host`. */
export async function openProjectLake(host: AssetHost, name: string): Promise<LakeWriter> {
  const paths = lakePaths(host.config.dataDir, name);
  const data = projectLakeData(host.config, name);
  const place = host.lakeCatalog;
  if (place.kind === "postgres")
    return openPostgresLake(place.pool, `${place.schema}_lake_${name.toLowerCase().replace(/-/g, "_")}`, data);
  return openLakeForWrite(paths.catalog, data);
}

/**
 * Open lake `name` for reading only when it exists (a SQLite catalog file, or any Postgres
 * lake schema, created empty on first open); undefined when a SQLite project has no such lake.
 */
export async function openExistingProjectLake(host: AssetHost, name: string): Promise<LakeWriter | undefined> {
  if (host.lakeCatalog.kind !== "postgres" && !existsSync(lakePaths(host.config.dataDir, name).catalog))
    return undefined;
  return openProjectLake(host, name);
}
