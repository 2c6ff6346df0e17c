/** The API token the UI sends, kept in this browser's localStorage (none is needed with `sluice dev` on loopback). */

const KEY = "sluice.token";

/** The saved token, if any. */
export function savedToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Saves (or, with null, forgets) the token. */
export function saveToken(token: string | null): void {
  if (token) localStorage.setItem(KEY, token);
  else localStorage.removeItem(KEY);
}
