/**
 * Opening a project's lake `ducklake://<name>` where the project keeps it: the SQLite
 * catalog `.sluice/lakes/<name>.sqlite`, or — when the project's store is Postgres — schema
 * `<store schema>_lake_<name>` of the project's database, so every server shares it. Data
 * files are under `.sluice/lakes/<name>/`, or with `"lakes": {"data": "s3"}` in the
 * project's bucket at `s3://<bucket>/<prefix>lakes/<name>/` (read through a local cache,
 * `.sluice/lakes/<name>.cache/`, kept within `"lakes": {"cacheMaxMB": …}`).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AssetConfig } from "../assets/config.js";
import type { AssetHost } from "../assets/host.js";
import type { Held } from "../assets/shared-opens.js";
import { openPostgresCatalog, postgresLakeSchemas } from "./catalog-postgres.js";
import { lakePaths } from "./locate.js";
import { LakeReader, openLake } from "./reader.js";
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

/**
 * What opening a project's lakes needs of its asset host: the asset settings and where the
 * catalogs live (and, for {@link withProjectLake}, the connections it keeps open, if any).
 */
export type ProjectLakes = Pick<AssetHost, "config" | "lakeCatalog"> & Partial<Pick<AssetHost, "shared">>;

/** The Postgres schema of lake `name` of a project whose store is in schema `storeSchema`. */
function lakeSchema(storeSchema: string, name: string): string {
  return `${storeSchema}_lake_${name.toLowerCase().replace(/-/g, "_")}`;
}

/** Open (creating if needed) lake `name` of the project behind `host`. */
export async function openProjectLake(host: ProjectLakes, name: string): Promise<LakeWriter> {
  const paths = lakePaths(host.config.dataDir, name);
  const data = projectLakeData(host.config, name);
  const place = host.lakeCatalog;
  if (place.kind === "postgres") return openPostgresLake(place.pool, lakeSchema(place.schema, name), data);
  return openLakeForWrite(paths.catalog, data);
}

/**
 * Run `fn` on lake `name` of the project behind `host` (created if needed): the host's open
 * lake when it keeps its connections ({@link AssetHost.shared}: one catalog connection per lake
 * for the host's life, so a run pays no open or close and a write plans on what the last one
 * left, checked against the latest snapshot), else one opened for `fn` and closed after it.
 * `fn` must not close the lake.
 */
export async function withProjectLake<R>(
  host: ProjectLakes,
  name: string,
  fn: (lake: LakeWriter) => Promise<R>,
): Promise<R> {
  const held = await holdProjectLake(host, name);
  try {
    return await fn(held.opened);
  } finally {
    await held.release();
  }
}

/**
 * Lake `name` of the project behind `host` until `release` (see {@link withProjectLake}): the
 * host's open lake, or one opened for this use, which `release` closes. The holder must not close it.
 */
export async function holdProjectLake(host: ProjectLakes, name: string): Promise<Held<LakeWriter>> {
  const open = () => openProjectLake(host, name);
  const key = host.shared && sharedKey(host, name);
  if (host.shared && key) return host.shared.acquire(key, open);
  const lake = await open();
  return { opened: lake, release: () => lake.close() };
}

/**
 * The key of lake `name`'s kept connection; undefined while its SQLite catalog does not exist
 * (the use that creates it closes it). A SQLite catalog is named by its file's device and
 * inode: a catalog removed and created again (a lake deleted by hand while the host runs) gets
 * a connection of its own, instead of commits going on into the removed file.
 */
function sharedKey(host: ProjectLakes, name: string): string | undefined {
  const place = host.lakeCatalog;
  if (place.kind === "postgres") return `lake:postgres:${lakeSchema(place.schema, name)}`;
  const catalog = lakePaths(host.config.dataDir, name).catalog;
  const file = statSync(catalog, { throwIfNoEntry: false });
  return file && `lake:sqlite:${catalog}:${file.dev}:${file.ino}`;
}

/**
 * Open lake `name` of the project behind `host` for reading only: its SQLite catalog opened
 * read-only (creating and changing nothing, readable on a read-only path; see
 * `catalog-sqlite.ts`), or its Postgres schema with read-only transactions (no schema or
 * table created). The lake must exist (see {@link projectLakeExists}).
 * @throws LakeError LAKE_NOT_FOUND when its SQLite catalog does not exist
 */
export async function openProjectLakeForRead(host: ProjectLakes, name: string): Promise<LakeReader> {
  const paths = lakePaths(host.config.dataDir, name);
  const { dataPath, remote } = projectLakeData(host.config, name);
  const options = { dataPath, ...(remote && { remote }) };
  const place = host.lakeCatalog;
  if (place.kind !== "postgres") return openLake(paths.catalog, options);
  const db = await openPostgresCatalog(place.pool, lakeSchema(place.schema, name), { readOnly: true });
  try {
    return await LakeReader.open(db, options);
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * The names of the project's existing lakes, sorted: its `.sluice/lakes/*.sqlite` catalogs,
 * or the lake schemas in its Postgres database (as schema names spell them: lower case, `_`
 * for `-`, which open the same lake). Creates nothing.
 * @throws DatabaseUnreachableError
 */
export async function listProjectLakes(host: ProjectLakes): Promise<string[]> {
  const place = host.lakeCatalog;
  if (place.kind === "postgres") {
    const prefix = `${place.schema}_lake_`;
    return (await postgresLakeSchemas(place.pool, prefix)).map((s) => s.slice(prefix.length)).filter((n) => n !== "");
  }
  const dir = join(host.config.dataDir, "lakes");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite"))
    .map((f) => f.slice(0, -".sqlite".length))
    .sort();
}

/** Whether lake `name` exists (its SQLite catalog file, or its Postgres schema with a catalog). Creates nothing. */
export async function projectLakeExists(host: ProjectLakes, name: string): Promise<boolean> {
  const place = host.lakeCatalog;
  if (place.kind !== "postgres") return existsSync(lakePaths(host.config.dataDir, name).catalog);
  lakePaths(host.config.dataDir, name); // checks the name
  const schema = lakeSchema(place.schema, name);
  return (await postgresLakeSchemas(place.pool, schema)).includes(schema);
}

/**
 * Open lake `name` when it exists; undefined when it does not (nothing is created: a
 * Postgres lake schema is only made by a first write).
 * @throws DatabaseUnreachableError
 */
export async function openExistingProjectLake(host: ProjectLakes, name: string): Promise<LakeWriter | undefined> {
  if (!(await projectLakeExists(host, name))) return undefined;
  return openProjectLake(host, name);
}
