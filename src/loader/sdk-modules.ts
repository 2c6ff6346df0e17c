/**
 * The SDK modules user code may import, by specifier. When Sluice bundles a user
 * module, imports of these specifiers are replaced by a small virtual module that
 * reads the namespace below from `globalThis`, so user code shares this very SDK
 * instance (and its execution context) with the engine that runs it.
 */
import * as sluice from "../index.js";
import * as tako from "../sdk/tako/index.js";
import * as windmill from "../sdk/windmill/index.js";

const KEY = Symbol.for("sluice.sdk-modules.v1");

/** Specifier → namespace object. */
export type SdkModules = Record<string, Record<string, unknown>>;

/**
 * The native entry point and the compatibility ones, under the package's subpaths and
 * under the seeds' package names (the same namespaces the `tako.sh` and
 * `windmill-client` packages re-export). More are added by `registerSdkModule`.
 */
const modules: SdkModules = {
  sluice: { ...sluice },
  "sluice/tako": { ...tako },
  "sluice/windmill": { ...windmill },
  "tako.sh": { ...tako },
  "windmill-client": { ...windmill },
};

/** Publishes the modules on `globalThis` for bundled code. Idempotent. */
export function install(): SdkModules {
  (globalThis as unknown as Record<symbol, SdkModules>)[KEY] = modules;
  return modules;
}

/** Specifiers the bundler must redirect. */
export function sdkSpecifiers(): string[] {
  return Object.keys(modules);
}

/** Source of the virtual module standing in for `specifier`. */
export function virtualModuleSource(specifier: string): string {
  const ns = modules[specifier]!;
  const names = Object.keys(ns).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
  const lines = [
    `const m = globalThis[Symbol.for("sluice.sdk-modules.v1")]?.[${JSON.stringify(specifier)}];`,
    `if (!m) throw new Error(${JSON.stringify(`${specifier} is provided by Sluice: run this module with sluice dev / sluice worker, or import "sluice" in your own process`)});`,
    ...names.map((n) => `export const ${n} = m.${n};`),
    "export default m;",
  ];
  return lines.join("\n");
}
