/** `sluice releases [--json]`: the releases `sluice deploy` published, newest first (as `GET /api/releases`). */
import type { Command } from "commander";
import type { ReleaseSummary } from "../../core/release.js";
import { releaseView } from "../../http/views.js";
import { openStore, storeReady } from "../../store/open.js";
import { type CommandContext, json } from "../command.js";
import { table, timeLabel } from "../format.js";
import { parseCount } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject } from "../project.js";

/** What a release changed, in one cell: `+1 ~2 -0 file(s), ~1 workflow(s)`. */
function changed(r: ReleaseSummary): string {
  const parts = (["files", "workflows", "schedules", "triggers"] as const).flatMap((kind) => {
    const c = r.changes[kind];
    const n = c.added.length + c.changed.length + c.removed.length;
    return n === 0 ? [] : [`+${c.added.length} ~${c.changed.length} -${c.removed.length} ${kind}`];
  });
  return parts.length ? parts.join(", ") : "nothing";
}

/** Registers `sluice releases`. */
export function registerReleases(program: Command, cx: CommandContext): void {
  program
    .command("releases")
    .description("list the releases published with sluice deploy, newest first (the current one marked)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--limit <n>", "at most this many", "50")
    .option("--json", "print JSON (the shape of GET /api/releases)")
    .action(async (opts: { dir?: string; db?: string; limit: string; json?: boolean }) => {
      const limit = Math.max(1, parseCount(opts.limit, "--limit"));
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const store = openStore(project.dbPath, { readOnlyFallback: true });
      try {
        await storeReady(store);
        const [current, releases] = await Promise.all([store.currentReleaseId(), store.listReleases(limit)]);
        if (opts.json) return json(cx, { current, releases: releases.map((r) => releaseView(r)) });
        if (releases.length === 0) {
          cx.io.stdout(`no releases in ${project.dbLabel}: publish one with sluice deploy\n`);
          return;
        }
        cx.io.stdout(
          `${table(
            ["RELEASE", "PUBLISHED", "BY", "CHANGED"],
            releases.map((r) => [
              `${r.id}${r.id === current ? " (current)" : ""}${r.rollbackOf !== null ? ` rollback of ${r.rollbackOf}` : ""}`,
              timeLabel(r.createdAt),
              r.createdBy ?? "-",
              changed(r),
            ]),
          )}\n`,
        );
      } finally {
        await store.close();
      }
    });
}
