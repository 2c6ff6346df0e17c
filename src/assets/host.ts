/**
 * One project's asset storage: the object store behind `s3://`, resources, volumes and
 * data tables, opened from an {@link AssetConfig} and a store. The most recently opened
 * host is also the process default, used by SDK helpers called outside a pipeline run.
 */
import type { PoolConfig } from "pg";
import type { Store } from "../store/types.js";
import type { AssetConfig } from "./config.js";
import { Datatables } from "./datatables.js";
import { AssetHostMissingError } from "./errors.js";
import { type ObjectStore, openObjectStore } from "./object-store.js";
import { Resources } from "./resources.js";
import { Volumes } from "./volumes.js";

/**
 * Where the project's lake catalogs live: SQLite files in `.sluice/lakes/` by default, or
 * the project's Postgres database (one schema per lake) when its store is Postgres.
 */
export type LakeCatalogPlace =
  { readonly kind: "sqlite" } | { readonly kind: "postgres"; readonly pool: PoolConfig; readonly schema: string };

/** The asset backends of one project. */
export interface AssetHost {
  readonly config: AssetConfig;
  readonly lakeCatalog: LakeCatalogPlace;
  readonly objects: ObjectStore;
  readonly resources: Resources;
  readonly volumes: Volumes;
  readonly datatables: Datatables;
}

/** Opens a project's asset backends. */
export async function openAssetHost(config: AssetConfig, store: Store): Promise<AssetHost> {
  return {
    config,
    lakeCatalog: lakeCatalogOf(store),
    objects: await openObjectStore(config.s3),
    resources: new Resources(store),
    volumes: new Volumes(config),
    datatables: new Datatables(config),
  };
}

/** The lake catalog place of a store: its Postgres database and schema, else SQLite files. */
export function lakeCatalogOf(store: Store): LakeCatalogPlace {
  const target = (store as { target?: { pool?: PoolConfig; schema?: string } }).target;
  if (store.kind === "postgres" && target?.pool && target.schema)
    return { kind: "postgres", pool: target.pool, schema: target.schema };
  return { kind: "sqlite" };
}

const KEY = Symbol.for("sluice.asset-hosts.v1");

function hosts(): AssetHost[] {
  const g = globalThis as unknown as Record<symbol, AssetHost[] | undefined>;
  return (g[KEY] ??= []);
}

/** Makes `host` the process default (last installed wins). */
export function installAssetHost(host: AssetHost): void {
  const list = hosts();
  if (!list.includes(host)) list.push(host);
}

/** Removes `host` from the process defaults. */
export function uninstallAssetHost(host: AssetHost): void {
  const list = hosts();
  const i = list.indexOf(host);
  if (i >= 0) list.splice(i, 1);
}

/** The process default host. @throws AssetHostMissingError when none is installed */
export function defaultAssetHost(what: string): AssetHost {
  const list = hosts();
  const host = list[list.length - 1];
  if (!host) throw new AssetHostMissingError(what);
  return host;
}
