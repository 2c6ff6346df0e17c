/**
 * Builds the web UI into `dist/ui`, which the HTTP server serves (`npm run build`).
 * `npm run ui:dev` serves it with hot reload, proxying `/api` and `/approve` to a
 * running `sluice dev` (SLUICE_URL, default http://127.0.0.1:7777).
 */
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const target = process.env.SLUICE_URL ?? "http://127.0.0.1:7777";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../../dist/ui", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
  },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": target, "/approve": target, "/_sluice": target },
  },
});
