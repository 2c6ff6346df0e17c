/**
 * Test-only crash points for the fault matrix (`test/chaos/boundaries.test.ts`). With
 * `SLUICE_TEST_CRASH_AT=<point>` in its environment, a worker process kills itself with SIGKILL
 * the first time it reaches that point, as a power cut there would. The variable is read once,
 * when this module loads; unset (always, outside tests), {@link crashAt} is one comparison with
 * null. Not a feature: never set it in production.
 */
import { InvalidInputError } from "../core/errors.js";

/** Where a worker can be made to crash. */
export const CRASH_POINTS = [
  /** A run was claimed (its lease written), nothing of it executed. */
  "after-claim",
  /** A step body returned; its checkpoint is not written yet. */
  "after-step-body",
  /** A group commit holding a checkpoint is about to be sent to the store. */
  "before-checkpoint-commit",
  /** A group commit holding a checkpoint was committed; the step does not know yet. */
  "after-checkpoint-commit",
  /** A suspension that created children leased to this worker was committed; none of them runs yet. */
  "after-suspend-commit",
  /** A lease renewal (heartbeat) of running claims is about to be sent. */
  "before-renewal",
  /** A trigger's message was enqueued as a run; it is not acknowledged to its source yet (`triggers/runtime/deliver.ts`). */
  "trigger-after-enqueue",
] as const;

/** One of {@link CRASH_POINTS}. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/**
 * Reads `SLUICE_TEST_CRASH_AT`.
 * @throws InvalidInputError for a value that is not a crash point
 */
export function parseCrashPoint(value: string | undefined): CrashPoint | null {
  if (value === undefined || value === "") return null;
  if ((CRASH_POINTS as readonly string[]).includes(value)) return value as CrashPoint;
  throw new InvalidInputError(
    `SLUICE_TEST_CRASH_AT="${value}" is not a crash point; use one of ${CRASH_POINTS.join(", ")} (test-only) or unset it`,
    { code: "INVALID_CRASH_POINT" },
  );
}

const armed: CrashPoint | null = parseCrashPoint(process.env.SLUICE_TEST_CRASH_AT);

/** Whether a crash point is armed (lets a caller skip work that only locates a point). */
export const crashArmed: boolean = armed !== null;

/** Kills this process with SIGKILL when `point` is the armed crash point (test-only). */
export function crashAt(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, "SIGKILL");
}
