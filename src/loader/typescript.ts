/**
 * TypeScript's parser, loaded on first use. It is by far the largest module Sluice
 * imports (about a second of a cold start on a small machine), and a worker only needs
 * it to bundle a module or to name a script's parameters, so it is not loaded up front.
 */
import { createRequire } from "node:module";
import type * as TS from "typescript";

let loaded: typeof TS | null = null;

/** The `typescript` module (loaded synchronously the first time). */
export function typescript(): typeof TS {
  loaded ??= createRequire(import.meta.url)("typescript") as typeof TS;
  return loaded;
}
