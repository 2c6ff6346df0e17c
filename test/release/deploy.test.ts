/** Deploy across machines on a shared SQLite file (the scenario is in `scenario.ts`). */
import { join } from "node:path";
import Database from "better-sqlite3";
import { tempDir } from "../helpers/tmp.js";
import { deployScenario } from "./scenario.js";

deployScenario(
  "shared SQLite file",
  async () => join(tempDir("sluice-shared-db-"), "shared.db"),
  (file) => ({
    list: async () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT workflow FROM schedules ORDER BY workflow").all() as Array<{ workflow: string }>;
      } finally {
        db.close();
      }
    },
    makeDue: async (workflow) => {
      const db = new Database(file);
      try {
        db.pragma("busy_timeout = 5000");
        db.prepare("UPDATE schedules SET next_at = ? WHERE workflow = ?").run(Date.now() - 1, workflow);
      } finally {
        db.close();
      }
    },
  }),
);
