/**
 * `sluice logs`: the lines runs printed, across runs (one run with `--run`, one workflow
 * with `--workflow`, a time window with `--since`), newest page by default, and
 * `--follow` to keep printing new lines until interrupted (with `--run`: until that run has
 * finished): each line stored after it started, once, whatever its time (`--since` limits the
 * first page only; cli/log-follow.ts). `--json`: one JSON object per line (JSON Lines), the
 * same with or without `--follow`. A `--workflow` nobody registered and with no lines is an error, as an unknown
 * `--run` is (a typo would otherwise print nothing, or follow nothing forever).
 */
import type { Command } from "commander";
import { terminalSafe } from "../../core/terminal-text.js";
import { isTerminal } from "../../core/run-status.js";
import { RunNotFoundError, UnknownWorkflowError } from "../../sdk/errors.js";
import type { LogFilter, LogRecord, Store } from "../../store/types.js";
import { type CommandContext, pauseUnlessAborted, untilAborted } from "../command.js";
import { safe } from "../format.js";
import { FollowCursor } from "../log-follow.js";
import { parseCount, parseDurationOption } from "../options.js";
import { DB_OPTION, DIR_OPTION, withReadEngine } from "../project.js";

/** How often `--follow` looks for new lines. */
const FOLLOW_EVERY_MS = 500;
/** Lines `--follow` reads per query. */
const FOLLOW_PAGE = 1000;

type Line = LogRecord & { workflow: string };

/**
 * Reads the lines of `followed` numbered after `after` up to `upTo`, oldest first, page by
 * page, handing each page to `each` (until `stop` says so).
 */
async function readRange(
  store: Store,
  followed: Pick<LogFilter, "runId" | "workflow">,
  after: number,
  upTo: number,
  each: (page: Line[]) => void,
  stop: () => boolean = () => false,
): Promise<void> {
  for (let from = after; from < upTo && !stop();) {
    const page = await store.listLogs({ ...followed, afterSeq: from, upToSeq: upTo, limit: FOLLOW_PAGE });
    each(page);
    if (page.length < FOLLOW_PAGE) return;
    from = page.at(-1)!.seq;
  }
}

/**
 * A cursor at the log's end as it is now, which knows the lines of `followed` stored near it
 * (already there: printed only if the first page has them; cli/log-follow.ts).
 */
async function startFollowing(store: Store, followed: Pick<LogFilter, "runId" | "workflow">): Promise<FollowCursor> {
  const at = Date.now();
  const head = await store.lastLogSeq();
  const cursor = new FollowCursor(head, at);
  await readRange(store, followed, cursor.after, head, (page) => cursor.known(page));
  return cursor;
}

function render(line: Line, asJson: boolean): string {
  if (asJson)
    return `${JSON.stringify({
      ts: new Date(line.ts).toISOString(),
      level: line.level,
      msg: line.message,
      runId: line.runId,
      workflow: line.workflow,
      attempt: line.attempt,
      stepKey: line.stepKey,
      seq: line.seq,
    })}\n`;
  const where = line.stepKey ? ` [${safe(line.stepKey)}]` : "";
  const level = line.level === "info" ? "" : ` ${safe(line.level)}`;
  return `${new Date(line.ts).toISOString()} ${safe(line.workflow)} ${safe(line.runId)}${where}${level}: ${terminalSafe(line.message, { indent: "    " })}\n`;
}

/** Registers `sluice logs`. */
export function registerLogs(program: Command, cx: CommandContext): void {
  program
    .command("logs")
    .description("print the lines runs printed, across runs; --follow keeps printing new ones")
    .option("--run <id>", "only this run")
    .option("--workflow <name>", "only runs of this workflow")
    .option("--since <duration>", "only lines printed within this long, e.g. 1d, 2h, 30m")
    .option("--limit <n>", "at most this many lines (the newest)", "1000")
    .option("--follow", "keep printing new lines until interrupted (Ctrl-C); with --run, until the run has finished")
    .option("--json", "one JSON object per line")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .action(async (opts) => {
      const since = opts.since === undefined ? undefined : Date.now() - parseDurationOption(opts.since, "--since");
      const limit = Math.max(1, parseCount(opts.limit, "--limit"));
      const filter: LogFilter = {
        limit,
        ...(opts.run !== undefined && { runId: String(opts.run) }),
        ...(opts.workflow !== undefined && { workflow: String(opts.workflow) }),
        ...(since !== undefined && { since }),
      };
      const asJson = Boolean(opts.json);
      await withReadEngine(cx.io, opts, async (engine) => {
        const { store } = engine;
        // As `show` and `cancel`: a run that does not exist is not a run without lines.
        if (filter.runId !== undefined && !(await store.getRun(filter.runId))) throw new RunNotFoundError(filter.runId);
        // Following goes by the order lines are stored in, whatever their time: `--since` limits the first page only.
        const followed = { runId: filter.runId, workflow: filter.workflow };
        const follow = opts.follow ? await startFollowing(store, followed) : null;
        const first = await store.listLogs(filter);
        if (filter.workflow !== undefined && first.length === 0 && !(await store.getWorkflow(filter.workflow)))
          throw new UnknownWorkflowError(
            filter.workflow,
            (await store.listWorkflows()).map((w) => w.name),
          );
        for (const line of first) cx.io.stdout(render(line, asJson));
        if (!follow) return;
        follow.known(first);
        let stopped = false;
        void untilAborted(cx.io.signal).then(() => (stopped = true));
        // A followed run that has finished has printed all it will: one more read, then done.
        const runOver = async () => {
          if (filter.runId === undefined) return false;
          const run = await store.getRun(filter.runId);
          return run === null || isTerminal(run.status);
        };
        while (!stopped) {
          const over = await runOver();
          // Up to the log's end as it is now, from the low-water mark (cli/log-follow.ts).
          const at = Date.now();
          const head = await store.lastLogSeq();
          await readRange(
            store,
            followed,
            follow.after,
            head,
            (page) => {
              for (const line of follow.fresh(page)) cx.io.stdout(render(line, asJson));
            },
            () => stopped,
          );
          follow.settle(at, head);
          if (over) return;
          // A pause that takes its listener off the signal when it ends (a race with
          // `untilAborted` left one per poll: Node warned of a leak after 11).
          await pauseUnlessAborted(cx.io.signal, FOLLOW_EVERY_MS);
        }
      });
    });
}
