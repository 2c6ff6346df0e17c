import type Database from "better-sqlite3";
import { SluiceError } from "../../sdk/errors.js";
import { MIGRATIONS } from "./migrations/index.js";

/** The file's schema version (how many migrations it has). */
export function schemaVersion(db: Database.Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the schema up to date inside one IMMEDIATE transaction per migration, so
 * several processes opening one file at once apply each migration exactly once.
 * @throws SluiceError `SCHEMA_TOO_NEW` when the file was written by a newer Sluice
 */
export function migrate(db: Database.Database, path: string): void {
  // Up to date: nothing to write (so a file this process may only read still opens).
  if (schemaVersion(db) === MIGRATIONS.length) return;
  for (;;) {
    const applied = db
      .transaction(() => {
        const version = db.pragma("user_version", { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new SluiceError(
            "SCHEMA_TOO_NEW",
            `database ${path} has schema version ${version}, newer than this Sluice understands (${MIGRATIONS.length}): upgrade Sluice, or point it at another database`,
          );
        }
        const next = MIGRATIONS[version];
        if (next === undefined) return false;
        db.exec(next);
        db.pragma(`user_version = ${version + 1}`);
        return true;
      })
      .immediate();
    if (!applied) return;
  }
}
