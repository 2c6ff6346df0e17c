// The CLI bundle (`npm run build:cli`, part of `npm run build`): links the compiled CLI
// (dist/cli/main.js, from tsc) into dist/bundle/, one file per command plus shared chunks,
// which bin/sluice.js loads instead of ~200 separate modules. A lane worker starts on every
// first run of an idle group, and resolving, reading and compiling that many files was most
// of its start-up (see "Start-up cost" in docs/ARCHITECTURE.md; `npm run bench -- --lanes`).
//
// - `splitting`: every dynamic import() stays lazy (each command, the HTTP layer, the
//   diagram analyser, the object stores), so a command loads only what it uses.
// - npm packages load from node_modules as before (DuckDB, pg, TypeScript and esbuild stay
//   on first use; test/cli/startup-imports.test.ts checks it), except a few small pure-JS
//   ones every command uses (`BUNDLED`).
// - dist/bundle/ is two levels below the package like dist/<layer>/, so paths found from
//   `import.meta.url` (the `bin/sluice.js` lane workers start, `dist/ui`) are unchanged.
// - `keepNames`: error classes take their `name` from the class (`new.target.name`).
// - One SDK instance per process as before: user bundles read it from globalThis
//   (loader/sdk-modules.ts), and the process-wide state is keyed by Symbol.for, so an
//   app that imports `sluice` (dist/index.js) beside the CLI shares it too.
import { rmSync } from "node:fs";
import { build } from "esbuild";

/**
 * Small pure-JS packages every command uses: linked in, so a process does not resolve and
 * read them file by file (uuid alone is 20 modules, `@opentelemetry/api` 44). Every other
 * package stays external. The OpenTelemetry API keeps its state on `globalThis` (keyed by
 * its major version), so the linked copy sees the SDK that `--otel` registers from
 * node_modules (test/tracing/processes.test.ts).
 */
const BUNDLED = new Set(["commander", "uuid", "ms", "croner", "luxon", "@opentelemetry/api"]);

/** Leaves bare imports external unless their package is in `names`. */
function bundleOnly(names) {
  return {
    name: "bundle-only",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
        return names.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

const outdir = new URL("./dist/bundle/", import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL("./dist/cli/main.js", import.meta.url).pathname],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [bundleOnly(BUNDLED)],
  // commander and ms are CommonJS: their require() of Node's modules needs a real require.
  banner: {
    js: 'import { createRequire as __sluiceRequire } from "node:module"; const require = __sluiceRequire(import.meta.url);',
  },
  keepNames: true,
  logLevel: "warning",
});
