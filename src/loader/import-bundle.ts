import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { install } from "./sdk-modules.js";

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
