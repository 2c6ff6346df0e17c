#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build`, which also links it into
// dist/bundle/ (esbuild.config.js) so a process loads a few files instead of ~200 modules.
// The bundle is used when it is at least as new as the compiled CLI; after a bare `tsc` it
// would be stale, so the compiled modules run instead (same code, slower start).
import { statSync } from "node:fs";

const main = new URL("../dist/cli/main.js", import.meta.url);
const bundle = new URL("../dist/bundle/main.js", import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
const entry = mtime(bundle) >= 0 && mtime(bundle) >= mtime(main) ? bundle : main;

import(entry.href).catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli/main.js")) {
    console.error("sluice: the CLI is not built yet. Run `npm run build` in the sluice package first.");
    process.exit(1);
  }
  throw err;
});
