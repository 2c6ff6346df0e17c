/**
 * `sluice.json`'s `retention` followed while a project runs: `sluice dev` and a folder-mode `sluice server`
 * hand a reloaded file's retention to their scheduler, as they hand its trigger rows to their triggers.
 */
import { type Retention, retentionLabel, retentionMillis } from "../core/retention.js";
import type { Engine } from "../engine/engine.js";

/**
 * Gives the engine's scheduler `retention` (from a validated `sluice.json`; absent: the default).
 * `source` opens the line said (default `reloaded sluice.json`; a `--release` server names the release).
 * @returns the line saying what changed, or null when the retention in force is the same (or there is no scheduler)
 */
export function applyRetention(
  engine: Engine,
  retention: Retention | undefined,
  source = "reloaded sluice.json",
): string | null {
  const scheduler = engine.scheduler;
  if (!scheduler) return null;
  const before = scheduler.retentionMs;
  const after = retentionMillis(retention);
  if (after === before) return null;
  scheduler.setRetention(after);
  return `${source}: retention ${retentionLabel(after)} (was ${retentionLabel(before)})\n`;
}
