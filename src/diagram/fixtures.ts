/**
 * The example workflow sources kept in `fixtures/`: every TypeScript example of seed 000 (Windmill
 * "Workflows as code") with its lost import/opening lines reconstructed from the Python beside it,
 * plus Tako-style handlers from seed 002. Used by the diagram tests and reusable by later work
 * (UI stories, loader tests).
 *
 * Reads from the source tree (`src/diagram/fixtures/*.ts.txt`), so it is for tests and tools run
 * from a checkout, not for the built package.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** Every fixture, by name (the file is `fixtures/<name>.ts.txt`). */
export const FIXTURE_NAMES = [
  "quickstart",
  "workflow-basic",
  "task-basic",
  "task-options",
  "step",
  "parallel-promise-all",
  "parallel-helper",
  "sleep",
  "approval",
  "approval-form",
  "approval-schema",
  "resume-urls",
  "task-script-flow",
  "script-modules",
  "script-module-extract",
  "script-module-transform",
  "error-handling",
  "complete",
  "etl",
  "deployment-gate",
  "retry-backoff",
  "api-task-variants",
  "api-task-wrappers",
  "api-primitives",
  "task-options-interface",
  "tako-fulfill-order",
  "tako-approval",
] as const;

/** A fixture's name. */
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** The source text of fixture `name`. */
export function readFixture(name: FixtureName): string {
  return readFileSync(new URL(`./fixtures/${name}.ts.txt`, import.meta.url), "utf8");
}
