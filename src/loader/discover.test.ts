import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverWorkflowFiles, isRunnableFile } from "./discover.js";

const root = mkdtempSync(join(tmpdir(), "sluice-discover-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const files: Record<string, string> = {
  "workflows/a.ts": "export const x = 1;",
  "f/data/etl.ts": "export const main = workflow(async () => 1);",
  "f/data/script.ts": "export async function main(x: number) { return x; }",
  "src/app.ts": 'import { defineWorkflow } from "sluice"; export default defineWorkflow("app", { handler: () => 1 });',
  "lib/util.ts": "export const helper = () => 1;",
  "f/data/etl.test.ts": "export const main = 1;",
  "dist/old.js": "export function main() {}",
  ".hidden/x.ts": "export function main() {}",
  "node_modules/pkg/index.js": "export function main() {}",
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

describe("discovering runnable modules", () => {
  it("finds workflows/ files and modules that define a workflow or export main, skipping tests, build output and dot folders", () => {
    expect(discoverWorkflowFiles(root)).toEqual(["f/data/etl.ts", "f/data/script.ts", "src/app.ts", "workflows/a.ts"]);
  });
  it("answers for one file the same way, without walking the project", () => {
    for (const rel of Object.keys(files))
      expect(isRunnableFile(root, rel), rel).toBe(discoverWorkflowFiles(root).includes(rel));
  });
});
