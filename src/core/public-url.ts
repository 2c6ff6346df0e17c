/**
 * The public URL of a Sluice server: where resume and approval links point. Pure.
 *
 * Precedence (one rule): an explicit setting (`--public-url`, `SLUICE_PUBLIC_URL`,
 * the older `SLUICE_BASE_URL`, `sluice.json` `publicUrl`) wins; else the URL the
 * server recorded in the database's key-value records when it started (so a
 * separate `sluice worker` learns it); else `http://127.0.0.1:7777`.
 */
import { InvalidInputError } from "./errors.js";

/** Key-value record in which `sluice server` / `sluice dev` record their public URL. */
export const PUBLIC_URL_KEY = "server:public-url";
/** Where links point when nothing says otherwise. */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:7777";

/**
 * Checks a public URL (`http://` or `https://`, no query or fragment) and drops trailing slashes.
 * @throws InvalidInputError (`INVALID_PUBLIC_URL`) naming where the value came from
 */
export function normalizePublicUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(value, source);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username || url.password)
    throw invalid(value, source);
  return url.toString().replace(/\/+$/, "");
}

function invalid(value: string, source: string): InvalidInputError {
  return new InvalidInputError(
    `${source} ${JSON.stringify(value)} is not a public URL: use http(s)://host[:port][/path], e.g. https://sluice.example.com`,
    {
      code: "INVALID_PUBLIC_URL",
    },
  );
}

/** The first configured public URL among `settings` (in precedence order), normalised, or null. */
export function configuredPublicUrl(settings: Array<[source: string, value: string | undefined]>): string | null {
  for (const [source, value] of settings)
    if (value !== undefined && value !== "") return normalizePublicUrl(value, source);
  return null;
}

/** Where links point: the configured URL, else the recorded one (if valid), else the default. */
export function choosePublicUrl(configured: string | null, recorded: string | null): string {
  if (configured) return configured;
  if (recorded) {
    try {
      return normalizePublicUrl(recorded, "recorded public URL");
    } catch {
      // a bad record never breaks a run: fall back to the default
    }
  }
  return DEFAULT_PUBLIC_URL;
}
