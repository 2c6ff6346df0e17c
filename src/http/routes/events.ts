/**
 * `GET /api/events`: a Server-Sent Events stream of `change` events (`{"runs": [ids]}`;
 * an empty list means "something changed") that live views use to refresh.
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";

const KEEPALIVE_MS = 15_000;

/** Registers the change stream. */
export function eventRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/events", requireScope("read"), (c) => {
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, async (stream) => {
      const state: { pending: Set<string> | null; closed: boolean; wake: (() => void) | null } = {
        pending: null,
        closed: false,
        wake: null,
      };
      const unsubscribe = deps.feed.subscribe((change) => {
        state.pending ??= new Set();
        for (const id of change.runs) state.pending.add(id);
        state.wake?.();
      });
      stream.onAbort(() => {
        state.closed = true;
        state.wake?.();
      });
      try {
        await stream.writeSSE({ event: "ready", data: "{}" });
        while (!state.closed) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              state.wake = null;
              resolve();
            };
            const timer = setTimeout(done, KEEPALIVE_MS);
            state.wake = done;
            if (state.pending || state.closed) done();
          });
          if (state.closed) break;
          if (state.pending) {
            const runs = [...state.pending];
            state.pending = null;
            await stream.writeSSE({ event: "change", data: JSON.stringify({ runs }) });
          } else await stream.write(": keep-alive\n\n");
        }
      } finally {
        unsubscribe();
      }
    });
  });
}
