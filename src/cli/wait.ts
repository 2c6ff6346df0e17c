/**
 * `--wait`: block until a run finishes, tell the user when no worker has picked it up,
 * and give up only when asked (`--timeout`). Exit codes are part of the contract:
 * 0 succeeded, 1 failed or cancelled, {@link EXIT_WAIT_TIMEOUT} when `--timeout` passed
 * first, 130 when interrupted (the run keeps going in the last two cases).
 */
import { toMillis } from "../core/duration.js";
import { decodeValue } from "../core/serde.js";
import type { Engine } from "../engine/engine.js";
import { WaitTimeoutError } from "../sdk/errors.js";
import type { RunRecord } from "../store/types.js";
import { json, type CommandContext, untilAborted } from "./command.js";
import { runJson } from "./json.js";
import { errorSuffix, safe, timeLabel } from "./format.js";

/** Exit code of `--wait` when `--timeout` passed before the run finished (as GNU `timeout`). */
export const EXIT_WAIT_TIMEOUT = 124;
/** Exit code when the wait was interrupted (Ctrl-C). */
const EXIT_INTERRUPTED = 130;
/** How long a run may stay unclaimed before `--wait` says so; `SLUICE_WAIT_HINT_AFTER` overrides it. */
const DEFAULT_HINT_AFTER_MS = 10_000;

/** What {@link waitAndReport} needs besides the engine. */
export interface WaitOptions {
  timeoutMs?: number;
  json: boolean;
  /** Where the project's database is, for the hint. */
  dbLabel: string;
}

/**
 * Waits for `runId` to finish and prints its result (or its run JSON with `--json`),
 * setting the exit code as documented above.
 */
export async function waitAndReport(
  cx: CommandContext,
  engine: Engine,
  runId: string,
  opts: WaitOptions,
): Promise<void> {
  const hint = setTimeout(() => void hintIfUnclaimed(cx, engine, runId, opts.dbLabel), hintDelay(cx.io.env));
  const stop = new AbortController();
  try {
    const outcome = await Promise.race([
      engine.waitForRun(runId, opts.timeoutMs).then(
        (run) => ({ kind: "done" as const, run }),
        (err: unknown) => {
          if (err instanceof WaitTimeoutError) return { kind: "timeout" as const, err };
          throw err;
        },
      ),
      untilAborted(AbortSignal.any([cx.io.signal, stop.signal])).then(() => ({ kind: "interrupted" as const })),
    ]);
    if (outcome.kind === "done") return report(cx, outcome.run, opts.json);
    const now = await engine.getRun(runId);
    if (opts.json && now) json(cx, runJson(now));
    if (outcome.kind === "timeout") {
      cx.io.stderr(`sluice: ${outcome.err.message}\n`);
      cx.setExitCode(EXIT_WAIT_TIMEOUT);
    } else {
      cx.io.stderr(
        `sluice: stopped waiting; run ${safe(runId)} keeps going (${now?.status ?? "unknown"}): check it with \`sluice show ${runId}\`\n`,
      );
      cx.setExitCode(EXIT_INTERRUPTED);
    }
  } finally {
    clearTimeout(hint);
    stop.abort();
  }
}

function report(cx: CommandContext, run: RunRecord, asJson: boolean): void {
  if (asJson) json(cx, runJson(run));
  else if (run.status === "succeeded") cx.io.stdout(`${JSON.stringify(decodeValue(run.result) ?? null, null, 2)}\n`);
  else cx.io.stderr(`run ${safe(run.id)} ${run.status}${errorSuffix(run)}\n`);
  if (run.status !== "succeeded") cx.setExitCode(1);
}

async function hintIfUnclaimed(cx: CommandContext, engine: Engine, runId: string, dbLabel: string): Promise<void> {
  const run = await engine.getRun(runId).catch(() => null);
  if (!run || run.status !== "pending" || run.startedAt !== null) return;
  if (run.readyAt !== null && run.readyAt > Date.now()) {
    cx.io.stderr(`run ${safe(runId)} is scheduled for ${timeLabel(run.readyAt)}; still waiting\n`);
    return;
  }
  const group =
    run.queue === "default" ? "" : ` for worker group "${safe(run.queue)}" (sluice worker --group ${safe(run.queue)})`;
  cx.io.stderr(
    `no worker has claimed run ${safe(runId)} yet: start \`sluice dev\` or \`sluice worker\`${group} on this project's database (${dbLabel}); still waiting (Ctrl-C stops waiting, the run stays queued)\n`,
  );
}

function hintDelay(env: Record<string, string | undefined>): number {
  const raw = env.SLUICE_WAIT_HINT_AFTER;
  if (raw === undefined || raw === "") return DEFAULT_HINT_AFTER_MS;
  try {
    return toMillis(raw);
  } catch {
    return DEFAULT_HINT_AFTER_MS;
  }
}
