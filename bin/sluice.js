#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build`.
import("../dist/cli/main.js").catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli/main.js")) {
    console.error("sluice: the CLI is not built yet. Run `npm run build` in the sluice package first.");
    process.exit(1);
  }
  throw err;
});
