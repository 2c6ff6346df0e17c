import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { Message, Plugin } from "esbuild";
import { SluiceError } from "../sdk/errors.js";
import { functionTableSource, modulePathSource, moduleFunctionNames } from "./function-table.js";
import { sdkSpecifiers, virtualModuleSource } from "./sdk-modules.js";

/** A user module bundled into one ESM file. */
export interface Bundle {
  /** SHA-256 of `code`: the code version runs are pinned to. */
  hash: string;
  code: string;
}

/** A module could not be bundled (syntax error, missing import...). */
export class BundleError extends SluiceError {
  constructor(
    readonly file: string,
    readonly messages: string[],
  ) {
    super(
      "BUNDLE_FAILED",
      `cannot load ${file}:\n${messages.map((m) => `  ${m}`).join("\n")}\nfix the file and save it again`,
    );
  }
}

/** Options of {@link bundleModule}. */
export interface BundleOptions {
  /**
   * `external` (default): npm packages are imported from the project's node_modules at run
   * time. `bundle`: they are bundled in, so the code runs on a machine without the project
   * (a release, `sluice deploy`).
   */
  dependencies?: "external" | "bundle";
}

/** Lets bundled CommonJS dependencies `require` Node's built-in modules from an ES module. */
const REQUIRE_SHIM = `import { createRequire as __sluiceCreateRequire } from "node:module";
const require = __sluiceCreateRequire(import.meta.url);`;

/**
 * Bundles `file` (and the project files it imports) into one ESM module. npm
 * packages stay external (resolved from the project's node_modules at import time)
 * unless `options.dependencies` is `bundle`; the SDK entry points are redirected to
 * the running engine's SDK.
 */
export async function bundleModule(root: string, file: string, options: BundleOptions = {}): Promise<Bundle> {
  const withDeps = options.dependencies === "bundle";
  // Loaded on first use: a lane worker started with --from-build never bundles.
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: root,
    entryPoints: [file],
    // Not written: only fixes where the inline source map points (bundles live in .sluice/bundles/).
    outfile: join(root, ".sluice", "bundles", "bundle.mjs"),
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node20",
    ...(withDeps ? { banner: { js: REQUIRE_SHIM } } : { packages: "external" as const }),
    sourcemap: "inline",
    sourcesContent: false,
    logLevel: "silent",
    // Function names survive bundling, so task(fn) children and stack traces keep them.
    keepNames: true,
    plugins: [sdkPlugin(), functionTablePlugin(file, relative(root, file).split("\\").join("/"))],
  }).catch((err: { errors?: Message[] }) => {
    throw new BundleError(relative(root, file), (err.errors ?? []).map(formatMessage));
  });
  const code = result.outputFiles[0]!.text;
  return { hash: createHash("sha256").update(code).digest("hex").slice(0, 32), code };
}

function sdkPlugin(): Plugin {
  const specifiers = sdkSpecifiers();
  const filter = new RegExp(`^(${specifiers.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`);
  return {
    name: "sluice-sdk",
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: args.path, namespace: "sluice-sdk" }));
      b.onLoad({ filter: /.*/, namespace: "sluice-sdk" }, (args) => ({
        contents: virtualModuleSource(args.path),
        loader: "js",
      }));
    },
  };
}

/**
 * Appends to the entry module its function table and its project-relative path (see
 * function-table.ts), so a stored bundle knows what it is when loaded back by hash.
 */
function functionTablePlugin(entry: string, relPath: string): Plugin {
  const abs = resolve(entry);
  return {
    name: "sluice-function-table",
    setup(b) {
      b.onLoad({ filter: /\.(m?[jt]s)$/ }, async (args) => {
        if (resolve(args.path) !== abs) return undefined;
        const source = await readFile(args.path, "utf8");
        const names = moduleFunctionNames(source, args.path);
        return {
          contents: source + functionTableSource(names) + modulePathSource(relPath),
          loader: /\.m?ts$/.test(args.path) ? "ts" : "js",
        };
      });
    },
  };
}

function formatMessage(m: Message): string {
  const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ` : "";
  return `${at}${m.text}`;
}
