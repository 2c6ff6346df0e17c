/** Errors of `sluice/testing`. */
import { SluiceError } from "../sdk/errors.js";
import type { RunBlock } from "./blocked.js";

/**
 * A run awaited by {@link TestEngine.runToCompletion} is parked on a signal or an approval that
 * nothing in the test will send, and no timer can move it on.
 */
export class TestRunBlockedError extends SluiceError {
  constructor(
    readonly runId: string,
    readonly blocks: readonly RunBlock[],
  ) {
    const what = blocks
      .map((b) => (b.kind === "approval" ? `approval ${JSON.stringify(b.key)}` : `signal ${JSON.stringify(b.event)}`))
      .join(", ");
    super(
      "TEST_RUN_BLOCKED",
      `run ${runId} is waiting on ${what} and nothing else can run: send it from the test (testEngine.engine.signal(event, payload), or decide the approval) in the onWaiting option of runToCompletion`,
    );
  }
}

/** A test project's workflows failed to load. */
export class TestProjectLoadError extends SluiceError {
  constructor(root: string, problems: readonly string[]) {
    super("TEST_PROJECT_LOAD_FAILED", `the project at ${root} failed to load:\n${problems.join("\n")}`);
  }
}
