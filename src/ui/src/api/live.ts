/**
 * One shared connection to `/api/events` for the whole page: components subscribe to
 * "something changed" notifications (with the run ids that changed) and refresh.
 */
import { useEffect, useRef } from "react";
import { openEventStream } from "./sse";

type Listener = (runs: string[]) => void;
const listeners = new Set<Listener>();
let close: (() => void) | null = null;

function subscribe(fn: Listener): () => void {
  listeners.add(fn);
  close ??= openEventStream("/api/events", {
    onEvent: (ev) => {
      if (ev.event !== "change") return;
      const runs = (JSON.parse(ev.data) as { runs: string[] }).runs;
      for (const l of [...listeners]) l(runs);
    },
  });
  return () => {
    listeners.delete(fn);
    if (listeners.size === 0) {
      close?.();
      close = null;
    }
  };
}

/**
 * Calls `onChange` when runs change (at most every `minGapMs`), and every `pollMs` as a
 * safety net while `active` says the view shows unfinished work.
 */
export function useLiveRefresh(
  onChange: () => void,
  options: { active?: boolean; pollMs?: number; minGapMs?: number } = {},
): void {
  const ref = useRef(onChange);
  ref.current = onChange;
  const { active = true, pollMs = 3000, minGapMs = 250 } = options;
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const fire = () => {
      const wait = last + minGapMs - Date.now();
      if (wait > 0) {
        timer ??= setTimeout(() => {
          timer = null;
          last = Date.now();
          ref.current();
        }, wait);
        return;
      }
      last = Date.now();
      ref.current();
    };
    const unsubscribe = subscribe(fire);
    const poll = active ? setInterval(fire, pollMs) : null;
    return () => {
      unsubscribe();
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
    };
  }, [active, pollMs, minGapMs]);
}
