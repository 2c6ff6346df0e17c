/**
 * Sluice's version, read once from `package.json` (the one place it is written), for
 * `sluice --version` and the OpenAPI document. `src/sdk/version.ts` and `dist/sdk/version.js` both
 * sit two folders below the package root.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** The `version` field of Sluice's own `package.json`. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
