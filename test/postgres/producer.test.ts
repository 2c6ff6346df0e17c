/**
 * A producer on Postgres: a plain Node process (the built `sluice/tako` entry, no engine
 * of its own) enqueues with `SLUICE_DATABASE_URL` set, and exits by itself afterwards.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import { testDatabase } from "../helpers/postgres.js";
import { REPO } from "../helpers/project.js";

const exec = promisify(execFile);

const SCRIPT = `
import { defineWorkflow, signal } from ${JSON.stringify(join(REPO, "dist", "tako.js"))};
const report = defineWorkflow("report", { retries: 1, worker: "reports", handler: async () => 1 });
const id = await report.enqueue({ day: "2026-12-01" }, { id: "report:2026-12-01" });
const woken = await signal("nobody");
console.log(JSON.stringify({ id, woken }));
`;

describe("a producer process on Postgres", () => {
  it("enqueues into SLUICE_DATABASE_URL's database and exits on its own", async () => {
    if (!existsSync(join(REPO, "dist", "tako.js"))) throw new Error("dist/ is missing: run `npm run build`");
    const url = await testDatabase("producer");
    const started = Date.now();
    const r = await exec(process.execPath, ["--input-type=module", "-e", SCRIPT], {
      cwd: REPO,
      env: { ...process.env, SLUICE_DATABASE_URL: url, SLUICE_DATABASE: "" },
      timeout: 20_000,
    });
    expect(JSON.parse(r.stdout)).toEqual({ id: "report:2026-12-01", woken: 0 });
    // Idle pooled connections would hold it for the pool's 10 s idle timeout.
    expect(Date.now() - started).toBeLessThan(8_000);
    const store = openPostgresStore(url);
    try {
      expect(await store.getRun("report:2026-12-01")).toMatchObject({
        workflow: "report",
        status: "pending",
        queue: "reports",
        maxAttempts: 2,
      });
    } finally {
      await store.close();
    }
  });
});
