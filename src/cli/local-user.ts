/**
 * Who the person at this machine is, one name for every way they reach a project: the runs
 * `sluice enqueue` starts (`createdBy`), the decisions `sluice approve` makes, and every
 * request to `sluice dev`'s API without auth (its UI, curl). `waitForApproval({ selfApproval:
 * false })` compares these names, so the same person must get the same one whichever way they
 * go, including where `$USER` is unset (a container, cron, a service).
 */
import { userInfo } from "node:os";

/** Used when neither the environment nor the operating system names the account. */
const FALLBACK_USER = "local";

/** The OS account running this process, or null when it has no name (a uid without a passwd entry). */
function osAccount(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return null;
  }
}

/**
 * `$USER`, else `$LOGNAME`, else the name of the OS account running this process, else `local`
 * (empty values count as unset).
 * @example localUser({}) // "ana" for the account ana, with $USER unset
 */
export function localUser(env: NodeJS.ProcessEnv, account: () => string | null = osAccount): string {
  return env.USER || env.LOGNAME || account() || FALLBACK_USER;
}
