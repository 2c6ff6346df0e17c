/** Who the UI acts as (from `GET /api/me`), shared by every page. */
import { createContext, useContext } from "react";
import type { ApiMe } from "../../http/api-types";

/** The signed-in identity, and a way to sign out. */
export interface Session {
  me: ApiMe;
  signOut(): void;
}

/** React context of the {@link Session}. */
export const SessionContext = createContext<Session | null>(null);

/** The current session (inside the app shell). */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside the app shell");
  return s;
}
