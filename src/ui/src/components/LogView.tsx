/**
 * Logs of a run, streamed while it runs (Server-Sent Events), optionally only the lines
 * of one step. Follows the bottom unless scrolled up.
 */
import { useEffect, useRef, useState } from "react";
import type { ApiLogLine } from "../../../http/api-types";
import { seg } from "../api/client";
import { openEventStream } from "../api/sse";

/** The log lines of run `runId` (and of its child runs with `withChildren`), live until the run ends. */
function useLogStream(runId: string, withChildren: boolean): { lines: ApiLogLine[]; ended: boolean } {
  const [lines, setLines] = useState<ApiLogLine[]>([]);
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    setLines([]);
    setEnded(false);
    let buffer: ApiLogLine[] = [];
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const add = buffer;
      buffer = [];
      setLines((prev) => [...prev, ...add]);
    };
    const seen = new Set<number>();
    const close = openEventStream(`/api/runs/${seg(runId)}/logs/stream${withChildren ? "?children=true" : ""}`, {
      onEvent: (ev) => {
        if (ev.event === "log") {
          const line = JSON.parse(ev.data) as ApiLogLine;
          if (seen.has(line.seq)) return; // a reconnected stream of a run tree starts over
          seen.add(line.seq);
          buffer.push(line);
          frame ??= requestAnimationFrame(flush);
        } else if (ev.event === "end") setEnded(true);
      },
      onEnd: () => true,
    });
    return () => {
      close();
      if (frame !== null) cancelAnimationFrame(frame);
    };
  }, [runId, withChildren]);
  return { lines, ended };
}

const time = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour12: false }) +
  "." +
  String(new Date(iso).getMilliseconds()).padStart(3, "0");

/**
 * See the module comment. `children` (child run id → label) includes the lines of those
 * child runs, labelled; without it only the run's own lines are shown.
 */
export function LogView({
  runId,
  step,
  title,
  children,
}: {
  runId: string;
  step?: string | null;
  title: string;
  children?: Map<string, string>;
}) {
  const { lines, ended } = useLogStream(runId, children !== undefined);
  const shown = step ? lines.filter((l) => l.step === step) : lines;
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [shown.length]);
  return (
    <section className="card" aria-label="Logs">
      <div className="card-head">
        <h2>Logs</h2>
        <span className="muted small">{title}</span>
        <span className="spacer" />
        {!ended ? <span className="live">live</span> : null}
      </div>
      <div
        className="logs"
        ref={box}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {shown.length === 0 ? (
          <div className="muted small logs-empty">{ended ? "No log lines." : "No log lines yet."}</div>
        ) : (
          shown.map((l) => (
            <div key={l.seq} className={`log log-${l.level}`} data-seq={l.seq}>
              <span className="log-ts">{time(l.ts)}</span>
              {l.runId !== runId ? (
                <span className="log-child">{children?.get(l.runId) ?? "child"}</span>
              ) : l.step && !step ? (
                <span className="log-step">{l.step}</span>
              ) : null}
              {l.attempt > 1 ? <span className="log-attempt">#{l.attempt}</span> : null}
              <span className="log-msg">{l.message}</span>
            </div>
          ))
        )}
      </div>
    </section>
  );
}
