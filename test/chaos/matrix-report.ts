/**
 * Vitest global setup of `npm run test:chaos`: clears the rows of the previous run, starts the
 * Postgres cluster the faults use, and when the run ends prints the fault matrix (one row per
 * fault and store) and writes it to `test-artifacts/chaos/matrix.md`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import postgresSetup from "../helpers/postgres-global.js";
import { REPO } from "../helpers/project.js";
import type { MatrixRow } from "./harness.js";

const DIR = join(REPO, "test-artifacts", "chaos");
const ROWS = join(DIR, "rows.jsonl");

/** The matrix as a Markdown table. */
export function renderMatrix(rows: MatrixRow[]): string {
  const head =
    "| fault | store | injected | runs | lost | stuck | failed | wrong | duplicated effects | 5xx | s |\n" +
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.fault} | ${r.store} | ${r.injected} | ${r.runs} | ${r.lost} | ${r.stuck} | ${r.failed} | ${r.wrong} | ${r.duplicateEffects} | ${r.http5xx} | ${r.seconds} |`,
      )
      .join("\n") +
    "\n"
  );
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  rmSync(ROWS, { force: true });
  mkdirSync(DIR, { recursive: true });
  const stopPostgres = await postgresSetup(project);
  return async () => {
    await stopPostgres();
    const rows = existsSync(ROWS)
      ? readFileSync(ROWS, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as MatrixRow)
      : [];
    rows.sort((a, b) => a.fault.localeCompare(b.fault) || a.store.localeCompare(b.store));
    const table = renderMatrix(rows);
    writeFileSync(join(DIR, "matrix.md"), table);
    process.stdout.write(`\nFault matrix (${rows.length} rows; also test-artifacts/chaos/matrix.md):\n\n${table}\n`);
  };
}
