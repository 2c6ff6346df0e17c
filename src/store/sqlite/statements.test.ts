import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { Statements } from "./statements.js";

const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});
function open(): Database.Database {
  const db = new Database(":memory:");
  dbs.push(db);
  return db;
}

describe("Statements", () => {
  it("prepares a SQL text once and reuses it", () => {
    const s = new Statements(open());
    const first = s.get("SELECT 1 AS one");
    expect(s.get("SELECT 1 AS one")).toBe(first);
    expect(first.get()).toEqual({ one: 1 });
  });

  it("with a bound, starts afresh once it holds that many", () => {
    const s = new Statements(open(), 2);
    const a = s.get("SELECT 1");
    s.get("SELECT 2");
    expect(s.get("SELECT 1")).toBe(a); // still cached: two held
    s.get("SELECT 3"); // the third clears the cache
    expect(s.get("SELECT 1")).not.toBe(a);
  });
});
