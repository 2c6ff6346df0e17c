/**
 * Who may lead a name on a store whose leaderships are time leases (SQLite): the rule of
 * `Store.lead`, apart from its reads and writes. A leadership held by another holder is taken once
 * it has expired on this process's clock, or once {@link leaseAheadAction} ends it: a process whose
 * clock runs ahead writes an expiry far in the real future, and if it dies nobody else would lead
 * until the real clock caught up. Such a leadership is first noticed, and taken when it is still
 * noticed a whole length later (a live holder's renewal clears the notice, so it keeps leading).
 */
import { leaseAheadAction } from "./clock-reanchor.js";

/** The stored leadership of one name. */
export interface LeadershipRow {
  holder: string;
  expiresAt: number;
  /** The length its holder asked for at its last lead; null on rows written before it was recorded. */
  ttlMs: number | null;
  /** When another holder found it ahead (that holder's now); null since its last renewal. */
  noticedAt: number | null;
}

/** What a lead does: take (or renew) the leadership, leave it, or note it as found ahead at `notice`. */
export type LeadAction = "take" | "leave" | { notice: number };

/**
 * The action of `holder` leading a name whose stored leadership is `row` (null: nobody leads) at `now`.
 *
 * @example
 * leadAction(null, "a", now); // "take"
 * leadAction({ holder: "b", expiresAt: now + HOUR, ttlMs: 5_000, noticedAt: null }, "a", now); // { notice: now }
 * leadAction({ holder: "b", expiresAt: now + HOUR, ttlMs: 5_000, noticedAt: now - 5_000 }, "a", now); // "take"
 */
export function leadAction(row: LeadershipRow | null, holder: string, now: number): LeadAction {
  if (row === null || row.holder === holder || row.expiresAt < now) return "take";
  const ahead = leaseAheadAction({ leaseExpiresAt: row.expiresAt, leaseMs: row.ttlMs, noticedAt: row.noticedAt }, now);
  if (ahead === null) return "leave";
  return "notice" in ahead ? ahead : "take";
}
