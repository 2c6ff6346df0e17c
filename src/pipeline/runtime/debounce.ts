/**
 * Debounce windows, per subscriber and partition. The first write opens a window and
 * schedules one run at its end; later writes inside the window replace the recorded
 * trigger (last write wins) and push the end back (trailing debounce, at most
 * {@link MAX_WINDOWS} windows after the first write). The scheduled run, when it starts,
 * waits out any extension, then closes the window and takes the last write; writes after
 * that open the next window. State is one key-value record per slot, updated with
 * compare-and-set.
 */
import type { Store } from "../../store/types.js";
import { dispatchRunId, slotKey, swapJson } from "./ids.js";

/** Key prefix of debounce slots. */
export const DEBOUNCE_PREFIX = "pipeline:debounce:";
/** A window never extends past this many window lengths after its first write. */
const MAX_WINDOWS = 10;

/** The write that last fed a window. */
export interface DebouncedWrite {
  readonly run: string;
  readonly script: string;
  readonly assets: readonly string[];
  readonly depth: number;
  readonly firedAt: number;
  readonly at: number;
}

/** The stored state of one debounce slot. */
export interface DebounceState {
  /** Window number (1 first). */
  readonly window: number;
  readonly open: boolean;
  readonly first: number;
  /** When the window ends (epoch ms). */
  readonly until: number;
  /** Writes that fell into the window. */
  readonly count: number;
  readonly last: DebouncedWrite;
  /** The run that fires for this window. */
  readonly run: string;
  /** The previous window, kept so its run can still read its last write after a new one opened. */
  readonly previous?: { readonly window: number; readonly last: DebouncedWrite };
}

/** What offering a write to a debounce slot did. */
export type DebounceOffer =
  | { readonly outcome: "scheduled"; readonly run: string; readonly window: number; readonly until: number }
  | {
      readonly outcome: "coalesced";
      readonly run: string;
      readonly window: number;
      readonly until: number;
      readonly count: number;
    };

/** The key of a debounce slot. */
export function debounceKey(script: string, partition: string | undefined): string {
  return slotKey(DEBOUNCE_PREFIX, script, partition);
}

/** Offer a write to the slot `key` of `script` with window length `windowMs`. */
export async function offerDebounce(
  store: Store,
  key: string,
  script: string,
  windowMs: number,
  write: DebouncedWrite,
  now: number,
): Promise<DebounceOffer> {
  return swapJson<DebounceState, DebounceOffer>(store, key, (cur) => {
    if (cur && cur.open) {
      if (cur.last.run === write.run)
        return {
          next: undefined,
          result: { outcome: "coalesced", run: cur.run, window: cur.window, until: cur.until, count: cur.count },
        };
      const until = Math.max(cur.until, Math.min(now + windowMs, cur.first + MAX_WINDOWS * windowMs));
      const next: DebounceState = { ...cur, until, count: cur.count + 1, last: write };
      return { next, result: { outcome: "coalesced", run: cur.run, window: cur.window, until, count: next.count } };
    }
    const window = (cur?.window ?? 0) + 1;
    const run = dispatchRunId("d", key, window, now);
    const next: DebounceState = {
      window,
      open: true,
      first: now,
      until: now + windowMs,
      count: 1,
      last: write,
      run,
      ...(cur && { previous: { window: cur.window, last: cur.last } }),
    };
    return { next, result: { outcome: "scheduled", run, window, until: next.until } };
  });
}

/** What the scheduled run learns at its gate. */
export type DebounceGate =
  /** Wait this long more (the window was extended), then ask again. */
  | { readonly wait: number }
  /** The window is closed for this run: go, with the last write. */
  | { readonly last: DebouncedWrite | undefined; readonly count: number };

/** Called by the scheduled run of window `window`: wait, or close the window and go. */
export async function passDebounceGate(store: Store, key: string, window: number, now: number): Promise<DebounceGate> {
  return swapJson<DebounceState, DebounceGate>(store, key, (cur) => {
    if (!cur) return { next: undefined, result: { last: undefined, count: 0 } };
    if (cur.window === window) {
      if (cur.open && cur.until > now) return { next: undefined, result: { wait: cur.until - now } };
      return { next: cur.open ? { ...cur, open: false } : undefined, result: { last: cur.last, count: cur.count } };
    }
    if (cur.previous?.window === window) return { next: undefined, result: { last: cur.previous.last, count: 0 } };
    return { next: undefined, result: { last: undefined, count: 0 } };
  });
}

/** Every debounce slot, for status views. */
export async function listDebounces(
  store: Store,
): Promise<Array<{ script: string; partition: string; state: DebounceState }>> {
  return (await store.kvList(DEBOUNCE_PREFIX)).map((row) => {
    const rest = row.key.slice(DEBOUNCE_PREFIX.length);
    const space = rest.lastIndexOf(" ");
    return {
      script: rest.slice(0, space),
      partition: rest.slice(space + 1),
      state: JSON.parse(row.value) as DebounceState,
    };
  });
}
