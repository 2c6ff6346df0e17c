/**
 * `sluice/testing`: helpers for testing your workflows with the real engine on a fresh SQLite
 * file, skipping time over sleeps and timeouts.
 *
 * @example
 * import { createTestEngine } from "sluice/testing";
 * const t = await createTestEngine({ workflows: [remind] });
 * const run = await t.runToCompletion(remind, { user: "ada" });
 * expect(run.status).toBe("succeeded");
 * await t.close();
 */
export { createTestEngine, TestEngine } from "./testing/test-engine.js";
export type { CompletedRun, RunToCompletionOptions, TestEngineOptions } from "./testing/test-engine.js";
export { TestClock } from "./testing/test-clock.js";
export type { RunBlock } from "./testing/blocked.js";
export { TestProjectLoadError, TestRunBlockedError } from "./testing/errors.js";
