import { SluiceError } from "../errors.js";

/**
 * A child task failed. Thrown where the task's result is awaited; the same error on
 * every replay, because it is read from the checkpoint.
 * @example
 * try { await task(risky)(x) } catch (e) { if (e instanceof TaskError) console.log(e.step_key, e.child_job_id) }
 */
export class TaskError extends SluiceError {
  /** Checkpoint key of the failed task (`risky`, `risky#2`). */
  readonly step_key: string;
  /** Run id of the failed child. */
  readonly child_job_id: string | null;
  /** The child's error as stored: `{ name, message, code?, stack? }`. */
  readonly result: unknown;

  constructor(message: string, stepKey: string, childJobId: string | null, result: unknown) {
    super("TASK_FAILED", message);
    this.step_key = stepKey;
    this.child_job_id = childJobId;
    this.result = result;
  }
}
