/**
 * `GET /api/runs/:id/logs` (JSON, `after` cursor) and `GET /api/runs/:id/logs/stream`
 * (Server-Sent Events: `log` events while the run is unfinished, then one `end` event).
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { InvalidInputError, RunNotFoundError } from "../../sdk/errors.js";
import { isTerminal } from "../../store/types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { logView } from "../views.js";

/** Lines returned by one JSON page at most. */
export const MAX_LOG_PAGE = 5000;
/** How often a stream re-checks for lines when nothing announced a change (ms). */
const POLL_MS = 500;
/** Comment lines keep idle streams open through proxies (ms). */
const KEEPALIVE_MS = 15_000;

function parseAfter(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  if (!/^\d{1,15}$/.test(value)) throw new InvalidInputError(`"after" must be the seq of the last line you have (a whole number)`, { code: "INVALID_CURSOR" });
  return Number(value);
}

/** Registers the log routes. */
export function logRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/runs/:id/logs", requireScope("read"), async (c) => {
    const id = c.req.param("id");
    const after = parseAfter(c.req.query("after"));
    const run = await store.getRun(id);
    if (!run) throw new RunNotFoundError(id);
    const lines = (await store.getLogs(id, after)).slice(0, MAX_LOG_PAGE);
    const last = lines.length ? lines[lines.length - 1]!.seq : after;
    return c.json({ logs: lines.map(logView), nextAfter: last, finished: isTerminal(run.status) && lines.length < MAX_LOG_PAGE });
  });

  app.get("/api/runs/:id/logs/stream", requireScope("read"), async (c) => {
    const id = c.req.param("id");
    let after = parseAfter(c.req.header("last-event-id") ?? c.req.query("after"));
    if (!(await store.getRun(id))) throw new RunNotFoundError(id);
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, async (stream) => {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      let lastWrite = Date.now();
      const flush = async () => {
        for (const line of await store.getLogs(id, after)) {
          await stream.writeSSE({ event: "log", id: String(line.seq), data: JSON.stringify(logView(line)) });
          after = line.seq;
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
