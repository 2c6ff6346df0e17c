/**
 * The `pg` driver, loaded when a Postgres store is first opened. Loading it costs more
 * than the rest of a worker's start-up on a small machine, and SQLite users never need it.
 */
import { createRequire } from "node:module";
import type * as PG from "pg";

let loaded: typeof PG | null = null;

/** The `pg` module (loaded synchronously the first time). */
export function pgDriver(): typeof PG {
  loaded ??= createRequire(import.meta.url)("pg") as typeof PG;
  return loaded;
}
