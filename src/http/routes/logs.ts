/**
 * `GET /api/runs/:id/logs` (JSON, `after` cursor) and `GET /api/runs/:id/logs/stream`
 * (Server-Sent Events: `log` events while the run is unfinished, then one `end` event).
 * With `children=true` both include the lines of the run's child runs (its tasks),
 * interleaved in the order they happened, each line naming its run.
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { InvalidInputError, RunNotFoundError } from "../../sdk/errors.js";
import { isTerminal, type LogRecord, type Store } from "../../store/types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { logView } from "../views.js";

/** Lines returned by one JSON page at most. */
const MAX_LOG_PAGE = 5000;
/** Child runs whose lines are included at most (`children=true`). */
const MAX_LOG_CHILDREN = 200;
/** How often a stream re-checks for lines when nothing announced a change (ms). */
const POLL_MS = 500;
/** Comment lines keep idle streams open through proxies (ms). */
const KEEPALIVE_MS = 15_000;

function parseAfter(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  if (!/^\d{1,15}$/.test(value))
    throw new InvalidInputError(`"after" must be the seq of the last line you have (a whole number)`, {
      code: "INVALID_CURSOR",
    });
  return Number(value);
}

const byTime = (a: LogRecord, b: LogRecord) => a.ts - b.ts || a.seq - b.seq;

/** The run and, with `children`, its child runs (oldest first, at most {@link MAX_LOG_CHILDREN}). */
async function runsOf(store: Store, id: string, children: boolean): Promise<string[]> {
  if (!children) return [id];
  const kids = await store.listRuns({ parentId: id, limit: MAX_LOG_CHILDREN });
  return [id, ...kids.reverse().map((k) => k.id)];
}

/** Registers the log routes. */
export function logRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/runs/:id/logs", requireScope("read"), async (c) => {
    const id = c.req.param("id");
    const after = parseAfter(c.req.query("after"));
    const tree = c.req.query("children") === "true";
    const run = await store.getRun(id);
    if (!run) throw new RunNotFoundError(id);
    const all = (await Promise.all((await runsOf(store, id, tree)).map((r) => store.getLogs(r, after))))
      .flat()
      .sort((a, b) => a.seq - b.seq);
    const lines = all.slice(0, MAX_LOG_PAGE);
    const last = lines.length ? lines[lines.length - 1]!.seq : after;
    return c.json({
      logs: lines.sort(byTime).map(logView),
      nextAfter: last,
      finished: isTerminal(run.status) && all.length <= MAX_LOG_PAGE,
    });
  });

  app.get("/api/runs/:id/logs/stream", requireScope("read"), async (c) => {
    const id = c.req.param("id");
    const tree = c.req.query("children") === "true";
    const start = parseAfter(c.req.header("last-event-id") ?? c.req.query("after"));
    if (!(await store.getRun(id))) throw new RunNotFoundError(id);
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      const cursors = new Map<string, number>();
      let lastWrite = Date.now();
      const flush = async () => {
        const ids = await runsOf(store, id, tree);
        const fresh = (await Promise.all(ids.map((r) => store.getLogs(r, cursors.get(r) ?? start))))
          .flat()
          .sort(byTime);
        for (const line of fresh) {
          // Single-run streams carry the seq as the event id, so a reconnect resumes after it.
          await stream.writeSSE({
            event: "log",
            id: tree ? undefined : String(line.seq),
            data: JSON.stringify(logView(line)),
          });
          cursors.set(line.runId, Math.max(cursors.get(line.runId) ?? 0, line.seq));
          lastWrite = Date.now();
        }
      };
      while (!abort.signal.aborted) {
        await flush();
        const run = await store.getRun(id);
        if (!run || isTerminal(run.status)) {
          await flush();
          await stream.writeSSE({ event: "end", data: JSON.stringify({ status: run?.status ?? null }) });
          return;
        }
        if (Date.now() - lastWrite > KEEPALIVE_MS) {
          await stream.write(": keep-alive\n\n");
          lastWrite = Date.now();
        }
        await deps.feed.next(POLL_MS, abort.signal);
      }
    });
  });
}
