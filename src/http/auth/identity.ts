/**
 * Who is calling: the auth middleware resolves the bearer token (or, with auth off on
 * loopback in dev mode, the local user) into an {@link Identity}; `requireScope`
 * guards each endpoint.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.js";
import { AuthRequiredError, InvalidTokenError, ScopeError } from "../errors.js";
import { scopeAllows, type Scope } from "./scopes.js";
import type { ApiTokens } from "./tokens.js";

/**
 * How requests are authenticated. `off` is for `sluice dev` on loopback only: every
 * request acts as `user` with every scope. `tokens` needs a bearer token on every
 * endpoint except the public ones and the signed approval links.
 */
export type AuthConfig = { mode: "off"; user?: string } | { mode: "tokens" };

/** The caller of a request. */
export interface Identity {
  /** Token name (or the local user with auth off): the approver name and the creator of runs it starts. */
  name: string;
  scope: Scope;
  /** Id of the token used, or null with auth off. */
  tokenId: string | null;
}

/** Default identity of requests when auth is off. */
const LOCAL_USER = "local";

/**
 * Resolves the caller into `c.var.identity` (null when no credentials were sent and
 * auth is on). A malformed, unknown or revoked token is refused with 401 even on
 * endpoints that do not need one: credentials that were sent must be valid.
 */
export function identify(config: AuthConfig, tokens: ApiTokens): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    let identity: Identity | null = null;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const info = m ? await tokens.verify(m[1]!) : null;
      if (!info) throw new InvalidTokenError();
      identity = { name: info.name, scope: info.scope, tokenId: info.id };
    } else if (config.mode === "off") {
      identity = { name: config.user ?? LOCAL_USER, scope: "admin", tokenId: null };
    }
    c.set("identity", identity);
    await next();
  };
}

/** Refuses the request unless its caller has `scope` (401 without credentials, 403 below the scope). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const identity = c.get("identity");
    if (!identity) throw new AuthRequiredError(scope);
    if (!scopeAllows(identity.scope, scope)) throw new ScopeError(identity.name, identity.scope, scope);
    await next();
  };
}
