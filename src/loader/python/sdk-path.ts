/** Where the Python SDK (`sdk-python/wmill`) is, from the source tree or the built package. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: string | null = null;

/** The folder to put on `PYTHONPATH` so `import wmill` finds Sluice's Python SDK. */
export function pythonSdkDir(): string {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, "sdk-python", "wmill", "__init__.py"))) return (found = join(dir, "sdk-python"));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error("Sluice's Python SDK (sdk-python/wmill) is missing from this installation: reinstall sluice");
}
