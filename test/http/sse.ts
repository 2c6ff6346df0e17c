/** Reads Server-Sent Events from a response body until `done` says so, then cancels the stream. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Collects events until `done(events)` is true (or throws after `timeoutMs`). */
export async function readSse(
  res: Response,
  done: (events: SseEvent[]) => boolean,
  timeoutMs: number,
): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const ev: SseEvent = { event: "message", data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const i = line.indexOf(":");
          const field = i < 0 ? line : line.slice(0, i);
          const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "event") ev.event = val;
          else if (field === "data") data.push(val);
          else if (field === "id") ev.id = val;
        }
        if (data.length === 0 && ev.event === "message") continue;
        ev.data = data.join("\n");
        events.push(ev);
        if (done(events)) return events;
      }
    }
    throw new Error(`the event stream ended (or timed out) before the expected events; got ${JSON.stringify(events)}`);
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}
