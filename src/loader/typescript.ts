/**
 * The TypeScript compiler, loaded on first use: it costs most of a CLI command's start
 * (about 0.9 s of CPU), and only commands that load modules or parse sources need it.
 */
import { createRequire } from "node:module";
import type TS from "typescript";

let compiler: typeof TS | null = null;

/** The `typescript` module (loaded once, synchronously, when first asked for). */
export function typescript(): typeof TS {
  compiler ??= createRequire(import.meta.url)("typescript") as typeof TS;
  return compiler;
}
