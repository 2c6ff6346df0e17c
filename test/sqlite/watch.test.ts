/**
 * `SqliteStore.watch` hears commits made through another connection to the same file (the
 * `PRAGMA data_version` poll), and nothing when no one else wrote.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
const open: SqliteStore[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function store(path: string): SqliteStore {
  const s = openSqliteStore({ path, poll: "10ms" });
  open.push(s);
  return s;
}

const info = (name: string) => ({
  name,
  version: null,
  queue: "default",
  maxAttempts: 3,
  backoff: { base: 1000, max: 60_000 },
  source: null,
  schedule: null,
});

describe("SqliteStore.watch", () => {
  it("hears another connection's commit, each time, and stays quiet otherwise", async () => {
    const path = join(dir, "watch.db");
    const a = store(path);
    const b = store(path);
    let heard = 0;
    const unwatch = a.watch(() => heard++);
    await new Promise((r) => setTimeout(r, 60));
    expect(heard).toBe(0);
    await b.registerWorkflows([info("one")]);
    await expect.poll(() => heard, { timeout: 2000 }).toBe(1);
    await b.registerWorkflows([info("two")]);
    await expect.poll(() => heard, { timeout: 2000 }).toBe(2);
    unwatch();
  });
});
