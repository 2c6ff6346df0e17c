/**
 * Where assets live. Defaults keep everything inside the project's `.sluice/` folder
 * (zero set-up); `sluice.json` (`"assets": {…}`) and environment variables point S3
 * objects at a real bucket and name data tables and volumes elsewhere. Credentials are
 * never part of this configuration: the S3 client reads them from the standard AWS
 * environment variables or profile.
 */
import { isAbsolute, join, resolve } from "node:path";
import { AssetConfigError } from "./errors.js";

/** Where `s3://<key>` objects are kept. */
export type S3Config =
  /** A local directory (default `<project>/.sluice/s3`): `s3://demo/raw.json` is `<dir>/demo/raw.json`. */
  | { readonly kind: "local"; readonly dir: string }
  /** A bucket on S3 or an S3-compatible server: `s3://<key>` is `<bucket>/<prefix><key>`. */
  | {
      readonly kind: "s3";
      readonly bucket: string;
      readonly prefix: string;
      readonly region: string;
      readonly endpoint?: string;
      readonly forcePathStyle: boolean;
    };

/** The resolved asset configuration of one project. */
export interface AssetConfig {
  /** The project root. */
  readonly root: string;
  /** Sluice's own data folder, `<root>/.sluice`. */
  readonly dataDir: string;
  readonly s3: S3Config;
  /** Data table name → DuckDB database file. Names not listed get `<dataDir>/datatables/<name>.duckdb`. */
  readonly datatables: Readonly<Record<string, string>>;
  /** Volume name → directory. Names not listed get `<dataDir>/volumes/<name>`. */
  readonly volumes: Readonly<Record<string, string>>;
  /**
   * Where lake data files live (`"lakes": {"data": …}`): `local` (default) under
   * `<dataDir>/lakes/<name>/`, or `s3`: the bucket of `s3` at `<prefix>lakes/<name>/`.
   */
  readonly lakeData: "local" | "s3";
  /**
   * Size limit in bytes of each lake's local cache of object-store files (`"lakes": {"cacheMaxMB": …}`,
   * default 2048 MB); least recently used copies are removed first.
   */
  readonly lakeCacheMaxBytes: number;
}

/** Names of data tables, volumes and buckets: letters, digits, `_` and `-`. */
const ASSET_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function bad(msg: string): AssetConfigError {
  return new AssetConfigError(`sluice.json "assets": ${msg}`);
}

function str(v: unknown, what: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v === "") throw bad(`${what} must be a non-empty string`);
  return v;
}

function namedPaths(raw: unknown, what: string, root: string): Record<string, string> {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw bad(`"${what}" must be an object of name → path`);
  const out: Record<string, string> = {};
  for (const [name, path] of Object.entries(raw as Record<string, unknown>)) {
    if (!ASSET_NAME.test(name)) throw bad(`${what} name ${JSON.stringify(name)} may only use letters, digits, _ and -`);
    out[name] = resolve(root, str(path, `${what}.${name}`) as string);
  }
  return out;
}

function s3Config(raw: unknown, env: Record<string, string | undefined>, dataDir: string, root: string): S3Config {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r !== "object" || Array.isArray(r)) throw bad('"s3" must be an object');
  const bucket = env.SLUICE_S3_BUCKET ?? str(r.bucket, "s3.bucket");
  if (bucket === undefined) {
    const dir = str(r.dir, "s3.dir");
    return { kind: "local", dir: dir ? resolve(root, dir) : join(dataDir, "s3") };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw bad(`s3.bucket ${JSON.stringify(bucket)} is not a valid bucket name`);
  const prefix = env.SLUICE_S3_PREFIX ?? str(r.prefix, "s3.prefix") ?? "";
  if (prefix.startsWith("/") || prefix.includes("..")) throw bad("s3.prefix must be relative and must not contain ..");
  const endpoint = env.SLUICE_S3_ENDPOINT ?? str(r.endpoint, "s3.endpoint");
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint))
    throw bad(`s3.endpoint ${JSON.stringify(endpoint)} must be an http(s) URL`);
  const region = env.SLUICE_S3_REGION ?? str(r.region, "s3.region") ?? env.AWS_REGION ?? "us-east-1";
  const pathStyle = r.forcePathStyle ?? endpoint !== undefined;
  if (typeof pathStyle !== "boolean") throw bad("s3.forcePathStyle must be true or false");
  return {
    kind: "s3",
    bucket,
    prefix: prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`,
    region,
    forcePathStyle: pathStyle,
    ...(endpoint ? { endpoint } : {}),
  };
}

/**
 * Resolve a project's asset configuration.
 *
 * @param raw the `assets` value of `sluice.json` (or undefined)
 * @param env environment: `SLUICE_S3_BUCKET`, `SLUICE_S3_PREFIX`, `SLUICE_S3_ENDPOINT`, `SLUICE_S3_REGION` override the file
 * @throws AssetConfigError naming the bad field
 * @example resolveAssetConfig("/app", undefined, {}).s3 // { kind: "local", dir: "/app/.sluice/s3" }
 */
export function resolveAssetConfig(
  root: string,
  raw?: unknown,
  env: Record<string, string | undefined> = {},
): AssetConfig {
  const absRoot = resolve(root);
  const dataDir = join(absRoot, ".sluice");
  if (raw !== undefined && (typeof raw !== "object" || raw === null || Array.isArray(raw)))
    throw bad("must be an object");
  const r = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(r))
    if (!["s3", "datatables", "volumes", "lakes"].includes(key))
      throw bad(`unknown setting "${key}" (known: s3, datatables, volumes, lakes)`);
  const s3 = s3Config(r.s3, env, dataDir, absRoot);
  return {
    root: absRoot,
    dataDir,
    s3,
    datatables: namedPaths(r.datatables, "datatables", absRoot),
    volumes: namedPaths(r.volumes, "volumes", absRoot),
    ...lakesOf(r.lakes, s3),
  };
}

/** Default size limit of a lake's local cache of object-store files, in MB. */
const DEFAULT_LAKE_CACHE_MB = 2048;

function lakesOf(raw: unknown, s3: S3Config): { lakeData: "local" | "s3"; lakeCacheMaxBytes: number } {
  const out = { lakeData: "local" as "local" | "s3", lakeCacheMaxBytes: DEFAULT_LAKE_CACHE_MB * 1024 * 1024 };
  if (raw === undefined) return out;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw bad('"lakes" must be an object');
  for (const key of Object.keys(raw))
    if (key !== "data" && key !== "cacheMaxMB") throw bad(`unknown setting "lakes.${key}" (known: data, cacheMaxMB)`);
  const { data = "local", cacheMaxMB = DEFAULT_LAKE_CACHE_MB } = raw as { data?: unknown; cacheMaxMB?: unknown };
  if (data !== "local" && data !== "s3") throw bad(`lakes.data must be "local" or "s3", not ${JSON.stringify(data)}`);
  if (data === "s3" && s3.kind !== "s3")
    throw bad('lakes.data "s3" keeps lake files in the project\'s bucket: set "s3": {"bucket": …} too');
  if (typeof cacheMaxMB !== "number" || !Number.isFinite(cacheMaxMB) || cacheMaxMB <= 0)
    throw bad(
      `lakes.cacheMaxMB must be a positive number of megabytes (the size limit of each lake's local cache of bucket files), not ${JSON.stringify(cacheMaxMB)}`,
    );
  return { lakeData: data, lakeCacheMaxBytes: Math.round(cacheMaxMB * 1024 * 1024) };
}

/** The DuckDB file of data table `name`. @throws AssetConfigError for a bad name */
export function datatableFile(config: AssetConfig, name: string): string {
  if (!ASSET_NAME.test(name))
    throw new AssetConfigError(`data table name ${JSON.stringify(name)} may only use letters, digits, _ and -`);
  return config.datatables[name] ?? join(config.dataDir, "datatables", `${name}.duckdb`);
}

/** The directory of volume `name`. @throws AssetConfigError for a bad name */
export function volumeDir(config: AssetConfig, name: string): string {
  if (!ASSET_NAME.test(name))
    throw new AssetConfigError(`volume name ${JSON.stringify(name)} may only use letters, digits, _ and -`);
  const dir = config.volumes[name] ?? join(config.dataDir, "volumes", name);
  return isAbsolute(dir) ? dir : resolve(config.root, dir);
}
