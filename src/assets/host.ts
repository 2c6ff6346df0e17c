/**
 * One project's asset storage: the object store behind `s3://`, resources, volumes and
 * data tables, opened from an {@link AssetConfig} and a store. Each pipeline host owns
 * one; nothing keeps it process-wide (SDK helpers reach it through the engine of the
 * calling code, see `pipeline/runtime/sdk-host.ts`).
 */
import type { PoolConfig } from "pg";
import type { Store, StoreLocation } from "../store/types.js";
import type { AssetConfig } from "./config.js";
import { Datatables } from "./datatables.js";
import { type ObjectStore, openObjectStore } from "./object-store.js";
import { Resources } from "./resources.js";
import { SharedOpens } from "./shared-opens.js";
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
  /**
   * Connections kept open between runs (the project's lake catalogs), closed when the host's
   * owner stops; absent where each use opens and closes its own (one-shot commands).
   */
  readonly shared?: SharedOpens;
}

/** Opens a project's asset backends. */
export async function openAssetHost(config: AssetConfig, store: Store): Promise<AssetHost> {
  return {
    config,
    lakeCatalog: lakeCatalogOf(store.location),
    objects: await openObjectStore(config.s3),
    resources: new Resources(store),
    volumes: new Volumes(config),
    datatables: new Datatables(config),
    shared: new SharedOpens(),
  };
}

/**
 * The lake catalog place of a store's location: its database server and schema, else SQLite
 * files. The engine's asset host and `sluice lake` (which opens no store) both take it from here.
 */
export function lakeCatalogOf(at: StoreLocation): LakeCatalogPlace {
  return at.kind === "server"
    ? { kind: "postgres", pool: { connectionString: at.url }, schema: at.schema }
    : { kind: "sqlite" };
}
