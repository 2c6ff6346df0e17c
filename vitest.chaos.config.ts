import { defineConfig } from "vitest/config";

/** `npm run test:chaos`: the fault matrix (test/chaos/), bounded, loopback only, one file at a time. */
export default defineConfig({
  test: {
    include: ["test/chaos/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["test/chaos/matrix-report.ts"],
  },
});
