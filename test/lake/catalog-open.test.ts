/**
 * Opening and closing lake catalogs leaves nothing behind that slows the process: a worker
 * opens the project's lake once per run, so what one open costs every later promise adds up
 * run after run (one `AsyncLocalStorage` per catalog, never disabled, made 100,000 awaits take
 * 2,400 ms instead of 7 ms after 300 catalogs).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openSqliteCatalog } from "../../src/lake/catalog-sqlite.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sluice-catalog-open-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Wall time of `n` awaits of resolved promises, best of 3, ms. */
async function awaits(n: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await Promise.resolve(i);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

it("300 catalogs opened, used in a transaction and closed leave promises as cheap as before", async () => {
  const before = await awaits(20_000);
  for (let i = 0; i < 300; i++) {
    const db = openSqliteCatalog(join(dir, "c.sqlite"), { create: true });
    await db.transaction(async () => {
      await db.run("CREATE TABLE IF NOT EXISTS t (x INTEGER)");
    });
    await db.close();
  }
  const after = await awaits(20_000);
  // one enabled AsyncLocalStorage per catalog made this ≈ 300x slower; noise is far below 10x
  expect(after).toBeLessThan(before * 10 + 20);
});
