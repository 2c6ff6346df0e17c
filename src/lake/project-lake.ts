/**
 * Opening a project's lake `ducklake://<name>` where the project keeps it: the SQLite
 * catalog `.sluice/lakes/<name>.sqlite`, or — when the project's store is Postgres — schema
 * `<store schema>_lake_<name>` of the project's database, so every server shares it. Data
 * files are under `.sluice/lakes/<name>/` in both cases (local; object storage is not done).
 */
import { existsSync } from "node:fs";
import type { AssetHost } from "../assets/host.js";
import { lakePaths } from "./locate.js";
import { type LakeWriter, openLakeForWrite, openPostgresLake } from "./writer.js";

/** Open (creating if needed) lake `name` of the project behind `host`. */
export async function openProjectLake(host: AssetHost, name: string): Promise<LakeWriter> {
  const paths = lakePaths(host.config.dataDir, name);
  const place = host.lakeCatalog;
  if (place.kind === "postgres")
    return openPostgresLake(place.pool, `${place.schema}_lake_${name.toLowerCase().replace(/-/g, "_")}`, {
      dataPath: paths.data,
    });
  return openLakeForWrite(paths.catalog, { dataPath: paths.data });
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
