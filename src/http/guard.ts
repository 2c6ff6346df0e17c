/**
 * Browser-facing defences. Cross-site requests may not change anything (a page on
 * another site cannot make your browser cancel runs), and with auth off the server
 * answers only loopback callers using a loopback host name, which defeats DNS
 * rebinding.
 */
import type { MiddlewareHandler } from "hono";
import type { AuthConfig } from "./auth/identity.js";
import type { AppEnv } from "./context.js";
import { CrossOriginError, HostNotAllowedError } from "./errors.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** True for a loopback socket address (`127.x.x.x`, `::1`, `::ffff:127.x.x.x`). */
export function isLoopbackAddress(address: string): boolean {
  return address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

/** The host name of a `Host` header value (`[::1]:7777` → `[::1]`). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.split(":")[0]!;
}

/** The request guard; see the module comment. */
export function guard(auth: AuthConfig): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (auth.mode === "off") {
      const host = c.req.header("host") ?? new URL(c.req.url).host;
      if (!LOOPBACK_HOSTS.has(hostName(host))) throw new HostNotAllowedError(host);
      const remote = c.env?.incoming?.socket?.remoteAddress;
      if (remote && !isLoopbackAddress(remote)) throw new HostNotAllowedError(remote);
    }
    if (!SAFE_METHODS.has(c.req.method))
      checkSameOrigin(
        c.req.header("sec-fetch-site"),
        c.req.header("origin"),
        c.req.header("host") ?? new URL(c.req.url).host,
      );
    await next();
  };
}

/**
 * Refuses a state-changing request made by another site's page. Browsers say where a
 * request comes from in `Sec-Fetch-Site` (trusted first) or `Origin`; requests with
 * neither come from programs (curl, servers), which CSRF cannot forge.
 * @throws CrossOriginError
 */
export function checkSameOrigin(fetchSite: string | undefined, origin: string | undefined, host: string): void {
  if (fetchSite !== undefined) {
    if (fetchSite === "same-origin" || fetchSite === "none") return;
    throw new CrossOriginError(origin ?? `a ${fetchSite} page`);
  }
  if (origin === undefined) return;
  let originHost: string | null = null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    originHost = null;
  }
  if (originHost === null || originHost.toLowerCase() !== host.toLowerCase()) throw new CrossOriginError(origin);
}
