/**
 * Where a project's lakes live: `ducklake://<name>` has its SQLite catalog at
 * `<.sluice>/lakes/<name>.sqlite` and its data files under `<.sluice>/lakes/<name>/`.
 */
import { join } from "node:path";
import { isLakeName, LAKE_NAME_RULE } from "../core/lake-name.js";
import { LakeError } from "./errors.js";

/** The catalog file and data folder of lake `name` in the data folder `sluiceDir`. @throws LakeError for a bad name */
export function lakePaths(sluiceDir: string, name: string): { catalog: string; data: string } {
  if (!isLakeName(name))
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `lake name ${JSON.stringify(name)} is not allowed; use ${LAKE_NAME_RULE}`,
    );
  return { catalog: join(sluiceDir, "lakes", `${name}.sqlite`), data: join(sluiceDir, "lakes", name) };
}
