/** Small hooks shared by pages. */
import { useEffect, useState } from "react";
import { useLocation } from "wouter";

/** The current time, ticking every `ms` (durations of unfinished runs grow on screen). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/**
 * The path segment after `prefix`, decoded exactly once. Read from the raw
 * `location.pathname` (the router's decoded path would lose `%2F` in run ids and workflow names).
 */
export function usePathParam(prefix: string): string {
  useLocation();
  const raw = window.location.pathname.slice(prefix.length).split("/")[0] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Sets the document title. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Sluice`;
  }, [title]);
}
