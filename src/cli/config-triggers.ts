/**
 * Following `sluice.json` trigger rows while a project runs: `sluice dev` and a folder-mode
 * `sluice server` hand the file's rows to the running triggers each time it changes (rows added
 * start consuming, removed ones stop, changed ones restart) and its schedule rows to the engine
 * (published again: a cron added, changed or removed); a file that does not parse or holds
 * a bad row is refused with the reason and the running triggers stay as they were. Its `retention`
 * is followed in the same reload (`config-retention.ts`); other settings of the file still need a restart.
 *
 * @module
 */
import { basename, join } from "node:path";
import chokidar from "chokidar";
import type { Engine } from "../engine/engine.js";
import type { ProjectTriggers } from "../triggers/runtime/project.js";
import { checkScheduleRowTargets, scheduleRowsOf } from "../triggers/schedule-rows.js";
import { loadProjectConfig } from "./config.js";
import { applyRetention } from "./config-retention.js";

/**
 * Re-reads `<root>/sluice.json` and hands its trigger rows to `triggers`, and its retention to the
 * scheduler once they are adopted: the one reload both `sluice dev`'s project watcher and
 * {@link watchConfigTriggers} call. Never throws: a refused file is said through `warn`.
 */
export function configTriggersReloader(
  root: string,
  engine: Engine,
  triggers: ProjectTriggers,
  write: (line: string) => void,
  warn: (line: string) => void,
): () => Promise<void> {
  return async () => {
    try {
      const config = loadProjectConfig(root);
      const rows = config.triggers;
      // Checked before anything is adopted: a refused file leaves every running row (and the retention) as it was.
      checkScheduleRowTargets(rows, engine.publishedInfos());
      const specs = await triggers.reloadConfig(rows);
      configureScheduleRows(engine, rows, warn);
      await engine.publish();
      const ids = specs.filter((s) => s.source === "sluice.json").map((s) => s.id);
      write(`reloaded sluice.json: triggers ${ids.join(", ") || "(none)"}\n`);
      const retention = applyRetention(engine, config.retention);
      if (retention) write(retention);
    } catch (err) {
      warn(`error: sluice.json not reloaded, the running triggers stay as they were: ${(err as Error).message}\n`);
    }
  };
}

/**
 * Gives the engine `sluice.json`'s schedule rows (`triggers/schedule-rows.ts`; applied at its next
 * publish) and warns for a row whose runnable is not loaded (it gets its cron once it is).
 * @throws TriggerError `TRIGGER_ROW_INVALID` for a row whose loaded runnable requires parameters (nothing is set)
 */
export function configureScheduleRows(engine: Engine, rows: unknown, warn: (line: string) => void): void {
  checkScheduleRowTargets(rows, engine.publishedInfos());
  const schedules = scheduleRowsOf(rows);
  engine.setConfiguredSchedules(schedules);
  const known = new Set(engine.publishedInfos().map((w) => w.name));
  for (const name of schedules.keys())
    if (!known.has(name))
      warn(`warning: sluice.json schedules ${name}, which is not loaded: it gets its cron once it loads\n`);
}

/** A running watch of `sluice.json`. */
export interface ConfigWatch {
  /** Resolves once the watcher is watching (a change before that may be missed). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Calls `reload` when `<root>/sluice.json` is written, created or deleted (a folder-mode
 * `sluice server`; `sluice dev` watches the whole project and calls the same reload). Watches
 * the project folder itself only, not its subfolders.
 */
export function watchConfigTriggers(root: string, reload: () => Promise<void>): ConfigWatch {
  const file = join(root, "sluice.json");
  const watcher = chokidar.watch(root, {
    ignoreInitial: true,
    depth: 0,
    // Only the folder itself and its sluice.json: nothing else is read or watched.
    ignored: (path: string) => path !== root && path !== file && basename(path) !== "sluice.json",
    awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
  });
  const changed = (path: string) => {
    if (path === file) void reload();
  };
  watcher.on("add", changed).on("change", changed).on("unlink", changed);
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return { ready, close: () => watcher.close() };
}
