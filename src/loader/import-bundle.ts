import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SluiceError } from "../sdk/errors.js";
import { install } from "./sdk-modules.js";

/** A module threw while it was being imported (top-level code), so its workflows are not loaded. */
export class ModuleImportError extends SluiceError<"MODULE_IMPORT_FAILED"> {
  constructor(
    /** The module's path, relative to the project. */
    readonly file: string,
    cause: unknown,
  ) {
    super(
      "MODULE_IMPORT_FAILED",
      `${file}: ${cause instanceof Error ? cause.message : String(cause)} (thrown at import time, so its workflows are not loaded): fix the module's top-level code and save it again`,
      { cause },
    );
  }
}

/** True when the bundle of version `hash` is already written under `<root>/.sluice/bundles/`. */
export function bundleFileExists(root: string, hash: string): boolean {
  return existsSync(join(root, ".sluice", "bundles", `${hash}.mjs`));
}

/**
 * Imports a bundle by writing it to `<root>/.sluice/bundles/<hash>.mjs` (once) and
 * loading that file; Node caches it, so one version is evaluated once per process.
 * Inside the project, so the bundle's npm imports resolve from its node_modules.
 */
export async function importBundle(root: string, hash: string, code: string): Promise<Record<string, unknown>> {
  install();
  const dir = join(root, ".sluice", "bundles");
  const file = join(dir, `${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}
