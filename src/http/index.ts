/**
 * The HTTP face of Sluice: the JSON API, the approval pages and the web UI (see
 * `docs/API.md`). `createApp` builds the app on an engine; `startHttpServer` serves it.
 *
 * @module
 */
export { createApp, type AppOptions, type SluiceApp } from "./app.js";
export { startHttpServer, PortInUseError, type HttpServer, type ListenOptions, type FetchHandler } from "./server.js";
export { type AuthConfig, type Identity, LOCAL_USER } from "./auth/identity.js";
export { ApiTokens, type ApiTokenInfo } from "./auth/tokens.js";
export { SCOPES, type Scope } from "./auth/scopes.js";
export { isLoopbackAddress } from "./guard.js";
export type * from "./api-types.js";
