/**
 * Run statuses and the other names people use for them. Sluice's statuses stay what
 * they are (DESIGN.md "Run lifecycle"); Tako's names (seed 002: `pending`, `running`,
 * `succeeded`, `cancelled`, `dead`) are accepted as aliases wherever a status is
 * typed: `sluice runs --status`, `GET /api/runs?status=`, the web UI's filter.
 *
 * This file imports nothing, so the web UI shares it.
 */

/** Where a run is in its lifecycle. */
export type RunStatus = "pending" | "running" | "waiting" | "succeeded" | "failed" | "cancelled";

/** Every run status, in lifecycle order. */
export const RUN_STATUSES: readonly RunStatus[] = ["pending", "running", "waiting", "succeeded", "failed", "cancelled"];

/** Statuses a run never leaves. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ["succeeded", "failed", "cancelled"];

/** True when `status` is final (one of {@link TERMINAL_STATUSES}). */
export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Whether a run is still active: pending, running or waiting (not {@link isTerminal}). */
export function isActive(status: string): boolean {
  return !TERMINAL_STATUSES.includes(status as RunStatus);
}

/**
 * Tako's status names that differ from Sluice's, and the status each means.
 * `dead`: failed after its last retry, or by `ctx.fail` (Sluice: `failed`). Tako's
 * other names (`pending`, `running`, `succeeded`, `cancelled`) are Sluice's own; Tako
 * also counts a run parked on a sleep or signal as `pending`, which Sluice shows as
 * `waiting`, so `pending` keeps its Sluice meaning here.
 */
const TAKO_STATUS_ALIASES: Readonly<Record<string, RunStatus>> = Object.freeze({ dead: "failed" });

/** The aliases of `status` (e.g. `failed` → `["dead"]`), for help texts and the UI. */
export function aliasesOf(status: RunStatus): string[] {
  return Object.entries(TAKO_STATUS_ALIASES)
    .filter(([, s]) => s === status)
    .map(([alias]) => alias);
}

/** The status a typed name means (a Sluice status or a Tako alias), or null for an unknown name. */
export function resolveStatusName(name: string): RunStatus | null {
  const n = name.trim().toLowerCase();
  if ((RUN_STATUSES as readonly string[]).includes(n)) return n as RunStatus;
  return Object.hasOwn(TAKO_STATUS_ALIASES, n) ? TAKO_STATUS_ALIASES[n]! : null;
}

/** The result of {@link parseStatusList}: the statuses, or the first name that is not one. */
export type StatusListResult = { ok: true; statuses: RunStatus[] } | { ok: false; unknown: string };

/**
 * Parses a comma-separated list of status names (`"dead,succeeded"` → `["failed",
 * "succeeded"]`), without repeats. Empty entries are an error, as is an empty list.
 */
export function parseStatusList(value: string): StatusListResult {
  const statuses: RunStatus[] = [];
  for (const raw of value.split(",")) {
    const s = resolveStatusName(raw);
    if (s === null) return { ok: false, unknown: raw.trim() };
    if (!statuses.includes(s)) statuses.push(s);
  }
  return { ok: true, statuses };
}

/** One line naming every accepted status and alias, for error messages and help. */
export function describeStatusNames(): string {
  const aliases = Object.entries(TAKO_STATUS_ALIASES).map(([alias, s]) => `${alias} (= ${s})`);
  return `${RUN_STATUSES.join(", ")}, or Tako's ${aliases.join(", ")}`;
}
