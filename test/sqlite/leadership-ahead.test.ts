/**
 * A leadership written by a clock ahead, on a real SQLite file shared by two stores: one whose
 * clock (the store's injected clock, as a process's wall clock) runs an hour ahead takes the
 * `scheduler` leadership (its now is past the other's expiry), the other, on the right clock,
 * notes it as written ahead and takes it when it is still noted a whole length later
 * (`store/leadership-rule.ts`); a renewal by the live fast holder clears the note.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

const HOUR = 3_600_000;
const TTL = 5_000;
const path = join(tempDir("sluice-leader-ahead-"), "sluice.db");
const fast = openSqliteStore({ path, clock: { now: () => Date.now() + HOUR } });
let later = 0;
/** The right clock; `later` moves it forward to see a length pass without waiting. */
const right = openSqliteStore({ path, clock: { now: () => Date.now() + later } });
afterAll(async () => {
  await fast.close();
  await right.close();
});

interface Row {
  holder: string;
  ttlMs: number | null;
  noticedAt: number | null;
}
function row(name: string): Row | undefined {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare("SELECT holder, ttl_ms AS ttlMs, noticed_at AS noticedAt FROM leaders WHERE name = ?")
      .get(name) as Row | undefined;
  } finally {
    db.close();
  }
}

it("a dead fast holder's leadership is taken about one length after it is noted, not after the hour", async () => {
  later = 0;
  expect(await right.lead("scheduler", "right", TTL)).toBe(true);
  // The fast clock is past the right holder's expiry: it takes the leadership over (as before).
  expect(await fast.lead("scheduler", "fast", TTL)).toBe(true);
  expect(row("scheduler")).toMatchObject({ holder: "fast", ttlMs: TTL, noticedAt: null });
  // The fast process dies (no more renewals). The right holder notes the leadership as ahead…
  expect(await right.lead("scheduler", "right", TTL)).toBe(false);
  const noted = row("scheduler")!.noticedAt;
  expect(noted).not.toBeNull();
  expect(Math.abs(noted! - Date.now())).toBeLessThan(60_000);
  // …keeps leaving it within the length…
  later = TTL - 1_000;
  expect(await right.lead("scheduler", "right", TTL)).toBe(false);
  // …and takes it once noted for a whole length.
  later = TTL + 1_000;
  expect(await right.lead("scheduler", "right", TTL)).toBe(true);
  expect(row("scheduler")).toMatchObject({ holder: "right", ttlMs: TTL, noticedAt: null });
});

it("a live fast holder keeps leading: each renewal clears the note", async () => {
  later = 0;
  expect(await fast.lead("retention", "fast", TTL)).toBe(true);
  for (let i = 0; i < 4; i++) {
    later = i * (TTL - 1_000);
    expect(await right.lead("retention", "right", TTL)).toBe(false);
    expect(row("retention")!.noticedAt).not.toBeNull();
    expect(await fast.lead("retention", "fast", TTL)).toBe(true);
    expect(row("retention")).toMatchObject({ holder: "fast", noticedAt: null });
  }
  later = 10 * TTL;
  expect(await right.lead("retention", "right", TTL)).toBe(false);
  expect(row("retention")!.holder).toBe("fast");
});

it("a leadership written before its length was recorded is left to expire as before", async () => {
  later = 0;
  expect(await fast.lead("legacy", "fast", TTL)).toBe(true);
  const db = new Database(path);
  db.prepare("UPDATE leaders SET ttl_ms = NULL WHERE name = 'legacy'").run();
  db.close();
  later = 3 * TTL;
  expect(await right.lead("legacy", "right", TTL)).toBe(false);
  expect(await right.lead("legacy", "right", TTL)).toBe(false);
  expect(row("legacy")).toMatchObject({ holder: "fast", noticedAt: null });
});
