/** Deploy across machines on Postgres (the scenario is in `scenario.ts`). */
import { sql, testDatabase } from "../helpers/postgres.js";
import { deployScenario } from "./scenario.js";

const url = await testDatabase("deploy");

deployScenario(
  "Postgres",
  async () => url,
  (db) => ({
    list: () => sql<{ workflow: string }>(db, "SELECT workflow FROM schedules ORDER BY workflow"),
    makeDue: async (workflow) => {
      await sql(db, "UPDATE schedules SET next_at = now_ms() - 1 WHERE workflow = $1", [workflow]);
    },
  }),
);
