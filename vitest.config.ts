import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The fault matrix runs with `npm run test:chaos` (vitest.chaos.config.ts), not in `npm test`.
    exclude: ["**/node_modules/**", "test/chaos/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One embedded Postgres cluster for the run; each Postgres test file makes its own database.
    globalSetup: ["test/helpers/postgres-global.ts"],
  },
});
