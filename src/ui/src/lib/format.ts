/** Formatting for people: durations, relative and absolute times, JSON previews. */

/** `850 ms`, `4.2 s`, `3 m 12 s`, `2 h 5 m`, `3 d 4 h`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.floor(s)} s`;
  const m = Math.floor(s / 60);
  const part = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small ? `${big} ${bigUnit} ${small} ${smallUnit}` : `${big} ${bigUnit}`;
  if (m < 60) return part(m, "m", Math.floor(s % 60), "s");
  const h = Math.floor(m / 60);
  if (h < 48) return part(h, "h", m % 60, "m");
  return part(Math.floor(h / 24), "d", h % 24, "h");
}

/** Epoch ms as the ISO text {@link relative} and {@link timestamp} take. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/** `just now`, `12 s ago`, `5 m ago`, `in 3 h`. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "—";
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  if (abs < 5000) return "just now";
  const text =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} m`
        : abs < 172_800_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

/** `Nov 29, 23:02:50` in local time (with the year when not this year). */
export function timestamp(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    ...(sameYear ? {} : { year: "numeric" }),
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
}

/**
 * A time on a schedule's clock with its zone named, `Dec 4, 09:00:00 Europe/Paris` (the zone
 * is UTC when none is given): a cron fires on its own zone's clock, not the browser's.
 */
export function zonedTimestamp(iso: string | null | undefined, timeZone: string | null | undefined): string {
  if (!iso) return "—";
  return `${zonedClock(iso, timeZone)} ${timeZone || "UTC"}`;
}

/** {@link zonedTimestamp} without the zone's name, for a list that names it once. */
export function zonedClock(iso: string, timeZone: string | null | undefined): string {
  const zone = timeZone || "UTC";
  const year = (d: Date) => d.toLocaleString("en-US", { timeZone: zone, year: "numeric" });
  const d = new Date(iso);
  return d.toLocaleString(undefined, {
    timeZone: zone,
    month: "short",
    day: "numeric",
    ...(year(d) === year(new Date()) ? {} : { year: "numeric" }),
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
}

/** Milliseconds between two ISO times (or until now when `to` is null). */
export function between(from: string | null, to: string | null, now = Date.now()): number | null {
  if (!from) return null;
  return (to ? new Date(to).getTime() : now) - new Date(from).getTime();
}

/** Pretty JSON, shortened past `max` characters. */
export function prettyJson(value: unknown, max = 20_000): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** The first 8 characters of an id (UUIDv7 ids share their first characters within a second, so take the tail for those). */
export function shortId(id: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(id)) return id.slice(-12);
  return id.length > 24 ? `${id.slice(0, 22)}…` : id;
}
