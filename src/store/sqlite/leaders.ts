/** The leadership verbs of the SQLite store (see `Store.lead`); the rule is in `store/leadership-rule.ts`. */
import { leadAction, type LeadershipRow } from "../leadership-rule.js";
import type { Statements } from "./statements.js";

/** Takes or renews `name` for `holder` for `ttlMs` when the rule lets it; call inside an IMMEDIATE transaction. */
export function lead(s: Statements, now: number, name: string, holder: string, ttlMs: number): boolean {
  const row = s
    .get("SELECT holder, expires_at AS expiresAt, ttl_ms AS ttlMs, noticed_at AS noticedAt FROM leaders WHERE name = ?")
    .get(name) as LeadershipRow | undefined;
  const action = leadAction(row ?? null, holder, now);
  if (action === "leave") return false;
  if (action !== "take") {
    s.get("UPDATE leaders SET noticed_at = ? WHERE name = ?").run(action.notice, name);
    return false;
  }
  s.get(
    `INSERT INTO leaders (name, holder, since, expires_at, ttl_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
       ttl_ms = excluded.ttl_ms, noticed_at = NULL,
       since = CASE WHEN leaders.holder = excluded.holder THEN leaders.since ELSE excluded.since END`,
  ).run(name, holder, now, now + ttlMs, ttlMs);
  return true;
}

/** Gives `name` up if `holder` leads it; call inside an IMMEDIATE transaction. */
export function resign(s: Statements, name: string, holder: string): void {
  s.get("DELETE FROM leaders WHERE name = ? AND holder = ?").run(name, holder);
}
