/** What the long-running commands need to serve the API and UI, in one module they load when they start. */
export { createApp } from "./app.js";
export { isLoopbackHost, listen } from "./launch.js";
