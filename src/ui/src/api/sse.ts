/**
 * Server-Sent Events over `fetch` (not `EventSource`), so the bearer token can be sent.
 * Reconnects after a dropped connection, resuming from the last event id.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { authHeaders } from "./client";

/** Options of {@link openEventStream}. */
export interface StreamOptions {
  onEvent(event: EventSourceMessage): void;
  /** Called when the server ends the stream on purpose (no reconnect then if it returns true). */
  onEnd?(): boolean;
  /** Delay before reconnecting (ms). Default 1000. */
  retryMs?: number;
}

/** Opens a stream; returns a function that closes it. */
export function openEventStream(path: string, options: StreamOptions): () => void {
  const controller = new AbortController();
  let lastId: string | undefined;
  let stopped = false;
  const run = async () => {
    while (!stopped) {
      try {
        const headers: Record<string, string> = { accept: "text/event-stream", ...authHeaders() };
        if (lastId) headers["last-event-id"] = lastId;
        const res = await fetch(path, { headers, signal: controller.signal });
        if (!res.ok || !res.body) throw new Error(`stream ${path}: ${res.status}`);
        const parser = createParser({
          onEvent: (ev) => {
            if (ev.id) lastId = ev.id;
            options.onEvent(ev);
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
        if (options.onEnd?.()) return;
      } catch {
        if (stopped) return;
      }
      await new Promise((r) => setTimeout(r, options.retryMs ?? 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
