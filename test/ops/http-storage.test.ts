/**
 * The HTTP API while another process holds the database's write lock: an enqueue is
 * answered 503 STORAGE_ERROR naming the failure (nothing stored), and works again once
 * the lock is released. The lock is held by a real separate process.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { createEngine, defineWorkflow } from "../../src/index.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { REPO } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";

describe("POST /api/runs while the database is locked by another process", () => {
  it("answers 503 STORAGE_ERROR, stores nothing, and succeeds after the lock is released", async () => {
    const dir = tempDir("sluice-http-lock-");
    const path = join(dir, "sluice.db");
    const store = openSqliteStore({ path, busyTimeoutMs: 300 });
    const hello = defineWorkflow("hello", { handler: async () => "hi" });
    const engine = createEngine({ store, workflows: [hello], worker: false, scheduler: false });
    await engine.start();
    const app = createApp({ engine, auth: { mode: "off", user: "tester" }, projectRoot: dir, uiDir: null });
    const post = () =>
      app.request("/api/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ workflow: "hello", id: "h1" }),
      });

    const script = `const D = require("better-sqlite3"); const db = new D(${JSON.stringify(path)});
db.exec("BEGIN EXCLUSIVE"); console.log("locked"); process.stdin.on("data", () => { db.exec("COMMIT"); db.close(); process.exit(0); });`;
    const locker = spawn(process.execPath, ["-e", script], { cwd: REPO, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    locker.stdout!.on("data", (d) => (out += d));
    try {
      await eventually(() => out.includes("locked"), 10_000);
      const refused = await post();
      expect(refused.status).toBe(503);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("STORAGE_ERROR");
      expect(body.error.message).toBe(
        "database error (SQLITE_BUSY: database is locked): another process holds the database lock",
      );
      locker.stdin!.write("go\n");
      await new Promise((r) => locker.on("exit", r));
      expect(await store.getRun("h1")).toBeNull();
      const ok = await post();
      expect(ok.status).toBe(201);
    } finally {
      if (locker.exitCode === null) locker.kill("SIGKILL");
      await engine.stop();
      await store.close();
    }
  }, 30_000);
});
